"""bench/load.py at a small size: real gunicorn, real clients over HTTP, the database read back.
Every write a client was told succeeded must be stored once, with the content it sent; on
PostgreSQL a restart and a crash of the (private) server mid-load must cost clients only clean 503s
they retry, never a 500 or a write. Nothing here depends on how fast the machine is."""

from __future__ import annotations

from bench.load import Report, parser, run


def _nothing_acked_went_missing(report: Report) -> None:
    assert report.acked["create"] > 0 and report.acked["edit"] > 0 and report.acked["delete"] > 0
    assert (report.lost, report.duplicated, report.wrong) == ([], [], [])
    assert report.stored == report.expected and report.in_doubt == 0


def test_every_acknowledged_write_is_stored_once_on_the_embedded_default() -> None:
    # given 8 annotators writing at a quick pace for 20 s on SQLite (gunicorn as `make run` serves it)
    report = run(parser().parse_args(["--db", "embedded", "--clients", "8", "--seconds", "20", "--think", "0.3"]))
    # then every answer was a success, and the database holds exactly what the clients were told
    assert not report.statuses and report.clients == 8
    _nothing_acked_went_missing(report)
    assert not report.failed


def test_a_postgresql_restart_and_crash_under_load_lose_nothing_acknowledged() -> None:
    # given 8 annotators writing back to back on a private PostgreSQL cluster, which is restarted
    # (fast shutdown) 5 s in and crashed (immediate stop) and started again later
    args = ["--db", "postgres", "--clients", "8", "--seconds", "20", "--closed-loop", "--restart-postgres", "5"]
    report = run(parser().parse_args(args))
    assert [how for how, _, _ in report.restarts] == ["fast restart", "crash + start"]
    # then clients saw the outage as 503s with Retry-After and a sentence (no 500, no dropped answer)
    assert report.statuses["503"] > 0 and set(report.statuses) == {"503"} and report.bare_503 == 0
    # ... every client's writes were acknowledged again after the server was back
    assert report.acked_after_restarts == 8
    # ... and nothing acknowledged was lost, duplicated or changed
    _nothing_acked_went_missing(report)
    assert not report.failed
