"""A bounded write load with a durability check: N annotators (default 50) creating, editing and
deleting marks through the API for a fixed time on 127.0.0.1, then every acknowledged write is looked
up in the database.

Each annotator is logged in as the workspace is (session + CSRF), works on a scene assigned to them
(five annotators a scene) and draws the four kinds of marks (bench/harness/annotator.py): at the
workspace's pace (`--think` seconds between writes on average) or back to back (`--closed-loop`).
The server is gunicorn as `make run` starts it, on the embedded default (`--db embedded`: SQLite)
or on a private PostgreSQL cluster started for the run (`--db postgres`, bench/harness/pgcluster.py; never a
server someone else uses). `--restart-postgres AT_S` restarts that cluster AT_S seconds in
(`pg_ctl restart -m fast`) and, halfway through what is left, crashes it (`-m immediate`) and
starts it again; clients retry what was not answered.

Afterwards: every acknowledged create is one row, every acknowledged edit's content is the stored
content at its version, acknowledged deletes are gone. Prints clients, duration, acknowledged
writes, stored rows, lost / duplicated / wrong, answers by status, request p50/p99/max and
throughput; exits 1 when anything acknowledged is lost, duplicated or wrong, or a 500 was answered.

Usage: python bench/load.py [--db embedded|postgres] [--clients N] [--seconds S] [--think T]
       [--closed-loop] [--restart-postgres AT_S]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: `bench` is a package of the checkout
    sys.path.insert(0, str(ROOT))

from bench.harness.annotator import CONTENT, Ledger, run_group  # noqa: E402
from bench.harness.pgcluster import PrivateCluster  # noqa: E402
from bench.marks import PYTHON, _env, _free_port, _pct, _serve  # noqa: E402

PER_SCENE = 5

# Runs inside `manage.py shell`: annotators, their scenes (the demo video, its frame as the image)
# and a session each, as the login page makes it.
SETUP = """
import json, pathlib
from django.test import Client
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Video
from media_tools import probe_video
from tests.factories import AnnotatorFactory
video = pathlib.Path({video!r})
duration = probe_video(video).duration_s
people = [AnnotatorFactory(username=f"load-{{i}}") for i in range({clients})]
users = []
for i, user in enumerate(people):
    if i % {per_scene} == 0:
        names = [p.username for p in people[i : i + {per_scene}]]
        spec = SceneSpec(name=f"load {{i}}", video=video, satellite_from_keyframe_s=0.0, annotators=names)
        scene = scene_import(spec=spec, created_by=None)
        Video.objects.filter(scene__id=scene.id).update(duration_s=duration)
        image = scene.satellite_images.get()
    browser = Client()
    browser.force_login(user)
    users.append({{"username": user.username, "session": browser.cookies["sessionid"].value, "scene": scene.id,
                  "image": image.id, "width": image.width, "height": image.height, "duration": duration}})
print(json.dumps(users))
"""

DUMP = """
import json
from annotator.models import Mark
rows = list(Mark.objects.filter(author__username__startswith="load-").values(
    "id", "client_key", "version", "author__username", {fields}))
for row in rows:
    row["client_key"] = str(row["client_key"]) if row["client_key"] else None
pathlib.Path({out!r}).write_text(json.dumps(rows))
"""


@dataclass
class Report:
    clients: int
    seconds: float
    acked: Counter[str]
    stored: int
    expected: int
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    in_doubt: int = 0
    recognised: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    bare_503: int = 0
    latencies: list[float] = field(default_factory=list)
    restarts: list[tuple[str, float, float]] = field(default_factory=list)  # (how, began, back) epoch s
    acked_after_restarts: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.lost or self.duplicated or self.wrong or self.statuses["500"] or self.bare_503)


def _manage(env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [*PYTHON, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py shell failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _prepare(env: dict[str, str], clients: int) -> list[dict[str, Any]]:
    subprocess.run([*PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True)
    video = ROOT / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"
    out = _manage(env, SETUP.format(video=str(video), clients=clients, per_scene=PER_SCENE))
    return list(json.loads(out.strip().splitlines()[-1]))


def _stored(env: dict[str, str], data: Path) -> list[dict[str, Any]]:
    out = data / "stored.json"
    fields = ", ".join(f'"{f}"' for f in CONTENT)
    _manage(env, "import pathlib\n" + DUMP.format(fields=fields, out=str(out)))
    return list(json.loads(out.read_text()))


def _drive(port: int, users: list[dict[str, Any]], args: argparse.Namespace) -> list[Ledger]:
    """Clients in a few processes (threads within each), so no one interpreter lock serialises all."""
    start = time.time() + 1.0
    plan = {"start": start, "until": start + args.seconds, "think": 0.0 if args.closed_loop else args.think,
            "grace": args.grace}  # fmt: skip
    procs = max(1, min(len(users), args.procs))
    share = math.ceil(len(users) / procs)
    groups = [(users[i : i + share], range(i, i + share)) for i in range(0, len(users), share)]
    with multiprocessing.get_context("spawn").Pool(len(groups)) as pool:
        jobs = [pool.apply_async(run_group, (port, g, [args.seed + s for s in seeds], plan)) for g, seeds in groups]
        return [ledger for job in jobs for ledger in job.get()]


def _restarter(
    cluster: PrivateCluster, args: argparse.Namespace, log: list[tuple[str, float, float]]
) -> threading.Thread:
    def go() -> None:
        began = time.time()
        second = args.restart_postgres + (args.seconds - args.restart_postgres) / 2
        for how, at in (("fast restart", args.restart_postgres), ("crash + start", second)):
            time.sleep(max(0.0, began + 1.0 + at - time.time()))
            down = time.time()
            cluster.restart() if how == "fast restart" else cluster.crash_and_start()
            log.append((how, down, time.time()))

    return threading.Thread(target=go, daemon=True)


def check(ledgers: list[Ledger], rows: list[dict[str, Any]]) -> Report:
    """Compare what the clients were told with what the database holds."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_key.setdefault(row["client_key"], []).append(row)
    report = Report(clients=len(ledgers), seconds=0.0, acked=Counter(), stored=len(rows), expected=0)
    for ledger in ledgers:
        report.acked.update(ledger.acked)
        report.statuses.update(ledger.statuses)
        report.latencies += ledger.latencies
        report.in_doubt += len(ledger.in_doubt)
        report.recognised += ledger.recognised
        report.bare_503 += ledger.bare_503
        report.expected += len(ledger.marks)
        for key, mark in ledger.marks.items():
            found = by_key.get(key, [])
            if not found:
                report.lost.append(key)
            elif len(found) > 1:
                report.duplicated.append(key)
            elif found[0]["version"] != mark["version"] or any(found[0][f] != mark["content"][f] for f in CONTENT):
                report.wrong.append(key)
        report.wrong += [key for key in ledger.deleted if by_key.get(key)]  # deleted, yet there
    # rows nobody was told about: a create retried into a second row, or one never acknowledged
    known = {k for ledger in ledgers for k in [*ledger.marks, *ledger.deleted, *ledger.in_doubt]}
    report.duplicated += [str(row["id"]) for row in rows if row["client_key"] not in known]
    return report


def run(args: argparse.Namespace) -> Report:
    with contextlib.ExitStack() as stack:
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="skymark-load-")))
        cluster = stack.enter_context(PrivateCluster()) if args.db == "postgres" else None
        env = _env(ROOT, data, cluster.url if cluster else "")
        users = _prepare(env, args.clients)
        port = _free_port()
        log = stack.enter_context(open(data / "gunicorn.log", "wb"))
        server = _serve(ROOT, data, port, cluster.url if cluster else "", log=log)
        stack.callback(lambda: (server.terminate(), server.wait()))
        restarts: list[tuple[str, float, float]] = []
        if cluster is not None and args.restart_postgres is not None:
            _restarter(cluster, args, restarts).start()
        ledgers = _drive(port, users, args)
        # from the first client's start to the last one's end (retries after the end included)
        seconds = max(x.ended for x in ledgers) - min(x.began for x in ledgers)
        report = check(ledgers, _stored(env, data))
        report.seconds, report.restarts = seconds, restarts
        if restarts:
            report.acked_after_restarts = sum(1 for ledger in ledgers if ledger.last_ack > restarts[-1][2])
        if report.statuses["500"] and args.verbose:
            print((data / "gunicorn.log").read_text()[-5000:], file=sys.stderr)
        return report


def show(report: Report, args: argparse.Namespace) -> None:
    acked = sum(report.acked.values())
    lat = report.latencies or [0.0]
    print(f"db {args.db}  clients {report.clients}  duration {report.seconds:.0f} s  "
          f"{'closed loop' if args.closed_loop else f'think {args.think:g} s'}")  # fmt: skip
    for how, down, back in report.restarts:
        print(f"  {how}: server back after {back - down:.1f} s")
    print(f"acked writes {acked} (create {report.acked['create']}, edit {report.acked['edit']}, "
          f"delete {report.acked['delete']}; {report.recognised} recognised on a retry)")  # fmt: skip
    print(f"stored rows {report.stored}  expected {report.expected}  lost {len(report.lost)}  duplicated "
          f"{len(report.duplicated)}  wrong content {len(report.wrong)}  in doubt {report.in_doubt}")  # fmt: skip
    errors = ", ".join(f"{k}: {v}" for k, v in sorted(report.statuses.items())) or "none"
    print(
        f"errors by status: {errors}"
        + (f"  (503 without Retry-After/JSON: {report.bare_503})" if report.bare_503 else "")
    )
    rate = acked / max(report.seconds, 1e-9)
    print(f"requests {len(report.latencies)}  p50 {_pct(lat, 0.5):.1f} ms  p99 {_pct(lat, 0.99):.1f} ms  "
          f"max {max(lat) * 1000:.0f} ms  throughput {rate:.1f} acked writes/s")  # fmt: skip
    print("FAILED: acknowledged writes lost, duplicated or wrong, or a 500" if report.failed else "OK: acked == stored")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", choices=("embedded", "postgres"), default="embedded")
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--think", type=float, default=2.0, help="mean pause between one annotator's writes (s)")
    p.add_argument("--closed-loop", action="store_true", help="no pauses: each client writes back to back")
    p.add_argument("--restart-postgres", type=float, metavar="AT_S", help="restart, then crash, the private cluster")
    p.add_argument("--grace", type=float, default=60, help="how long a client keeps retrying after the end (s)")
    p.add_argument("--procs", type=int, default=4, help="client processes (clients are threads within them)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    return p


def main() -> None:
    args = parser().parse_args()
    if args.restart_postgres is not None and args.db != "postgres":
        raise SystemExit("--restart-postgres needs --db postgres")
    report = run(args)
    show(report, args)
    sys.exit(1 if report.failed else 0)


if __name__ == "__main__":
    main()
