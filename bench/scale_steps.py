"""The measurement steps of bench/scale.py, each run on one served tree (scale_served.Served): the
unit, reads and review loads, the model views and the release build; their figures go in the tree's
`figures`."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from harness.cpu import CpuMeter
from marks import PYTHON, _pct
from scale_clients import _load, _reads, _review, _units
from scale_served import CLIENTS, Sampler, Served

PROFILE = ""  # --profile DIR

VIEWS = """
import json
from annotator.models import ModelView
print(json.dumps({s: ModelView.objects.filter(state=s).count() for s in ("pending", "running", "succeeded", "failed")}))
"""
# Watches the views while the worker renders: from the first view it stores to the last of the
# backlog (or the time limit), so a backlog drained early is a rate, not the backlog over the limit.
VIEWS_WATCH = """
import json, time
from annotator.models import ModelView
def counts():
    return {{s: ModelView.objects.filter(state=s).count() for s in ("pending", "running", "succeeded", "failed")}}
start, first = time.monotonic(), None
done0 = counts()["succeeded"]
while time.monotonic() - start < {seconds}:
    now, c = time.monotonic(), counts()
    if first is None and c["succeeded"] > done0:
        first = (now, c["succeeded"])
    if c["pending"] + c["running"] == 0:
        break
    time.sleep(0.2)
end = counts()
span = (now - first[0]) if first else 0.0
print(json.dumps({{**end, "first_to_last_s": span, "after_first": end["succeeded"] - first[1] if first else 0,
                  "watched_s": now - start}}))
"""
VIEWS_BETWEEN = """
import datetime, json
from annotator.models import ModelView
a, b = (datetime.datetime.fromtimestamp(t, datetime.timezone.utc) for t in ({start}, {end}))
# How long the views queued in the window waited to be stored, for those stored in it: a worker that
# keeps up holds this near a claim's time; one that falls behind makes it grow with the window.
waits = sorted((f - c).total_seconds() for c, f in ModelView.objects.filter(
    created_at__range=(a, b), state="succeeded", finished_at__lte=b).values_list("created_at", "finished_at"))
print(json.dumps({{"queued": ModelView.objects.filter(created_at__range=(a, b)).count(),
                  "stored": ModelView.objects.filter(state="succeeded", finished_at__range=(a, b)).count(),
                  "left": ModelView.objects.filter(created_at__lte=b).exclude(state="succeeded").count(),
                  "wait_p50": waits[len(waits) // 2] if waits else None,
                  "wait_p99": waits[int(len(waits) * 0.99)] if waits else None}}))
"""
# The release build through its public entry points (as bench/release.py calls them); adapt here
# when the build's entry points change.
RELEASE = """
import json, resource, time
from django.contrib.auth import get_user_model
from review.models import Release
from review.releasing import jobs
from review.releasing.services import release_create
admin = get_user_model().objects.get(username="admin")
start = time.perf_counter()
release_create(version="9.{n}", user=admin, enqueue=False)
frozen = time.perf_counter() - start
release = Release.objects.get(version="9.{n}")
jobs.release_run(release_id=release.id)
release.refresh_from_db()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"freeze_s": frozen, "build_s": time.perf_counter() - start, "state": release.state,
                  "items": release.entries.count(), "peak_rss_mb": peak}}))
"""


def _record(s: Served, prefix: str, lat: dict[str, list[float]]) -> None:
    for name, values in sorted(lat.items()):
        s.figures[f"{prefix} {name}: p50 ms"] = _pct(values, 0.5)
        s.figures[f"{prefix} {name}: p99 ms"] = _pct(values, 0.99)
        s.figures[f"{prefix} {name}: max ms"] = max(values) * 1000


@contextlib.contextmanager
def _profiled(s: Served, name: str, clients: int) -> Any:
    """With --profile DIR: py-spy samples every gunicorn process of this tree while the 8-client load
    runs, written as DIR/NAME.svg (flame graph) and DIR/NAME.txt (collapsed stacks). Only the thread
    holding the interpreter lock is sampled (--gil): a request thread waiting for the lock or for the
    database keeps the frame it stopped in, and counted as busy it made long pure-Python stretches
    (DRF's field copies) and every query look several times their share of the CPU."""
    if not PROFILE or clients != CLIENTS or s.name != "this tree" or s.web is None:
        yield
        return
    spies = [
        subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--subprocesses", "--gil",
                          "--pid", str(s.web.pid), "--rate", "200",
                          "--format", fmt, "-o", str(Path(PROFILE) / f"{name}.{ext}")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fmt, ext in (("flamegraph", "svg"), ("raw", "txt"))
    ]  # fmt: skip
    time.sleep(1.0)  # attached before the load starts
    try:
        yield
    finally:
        for spy in spies:
            spy.send_signal(2)  # SIGINT: py-spy writes what it sampled
            spy.wait()


def _step_units(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-units", clients), CpuMeter(s.pids) as cpu:
        lat, wall = _load(_units, s.port, s.people["annotators"], clients, n, s.units_done + 10_000 * clients)
    s.units_done += clients * n
    s.figures[f"{clients} cl unit: units/s"] = clients * n / wall
    # CPU per unit: steadier than units/s where server, clients and others share the cores.
    s.figures[f"{clients} cl unit: server CPU ms/unit"] = cpu.server_s * 1000 / (clients * n)
    s.figures[f"{clients} cl unit: server CPU in the kernel ms/unit"] = cpu.server_kernel_s * 1000 / (clients * n)
    s.figures[f"{clients} cl unit: client CPU ms/unit"] = cpu.clients_s * 1000 / (clients * n)
    s.figures[f"{clients} cl unit: database and cache CPU ms/unit"] = cpu.services_s * 1000 / (clients * n)
    s.figures[f"{clients} cl unit: machine busy CPU ms/unit"] = cpu.machine_s * 1000 / (clients * n)
    s.figures[f"{clients} cl unit: load average (1 min) after"] = os.getloadavg()[0]
    _record(s, f"{clients} cl", lat)


def _per_request_cpu(
    s: Served, clients: int, what: str, cpu: CpuMeter, lat: dict[str, list[float]], wall: float
) -> None:
    """Requests answered per second, and server and client CPU per request, of a load: on cores
    shared with the clients and with other people's work, the CPU figures are steadier than its
    latencies (a read's p50 at 8 clients is mostly waiting for the CPU the others' requests take)."""
    requests = sum(len(v) for k, v in lat.items() if k.startswith(("GET", "POST")))
    s.figures[f"{clients} cl {what}: requests/s"] = requests / wall
    s.figures[f"{clients} cl {what}: server CPU ms/request"] = cpu.server_s * 1000 / max(requests, 1)
    s.figures[f"{clients} cl {what}: client CPU ms/request"] = cpu.clients_s * 1000 / max(requests, 1)
    s.figures[f"{clients} cl {what}: database and cache CPU ms/request"] = cpu.services_s * 1000 / max(requests, 1)


def _step_reads(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-reads", clients), CpuMeter(s.pids) as cpu:
        lat, wall = _load(_reads, s.port, s.people["annotators"], clients, n, 0)
    _per_request_cpu(s, clients, "reads", cpu, lat, wall)
    _record(s, f"{clients} cl", lat)


def _step_review(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-review", clients), CpuMeter(s.pids) as cpu:
        lat, wall = _load(_review, s.port, s.people["reviewers"], clients, n, 0)
    _per_request_cpu(s, clients, "review steps", cpu, lat, wall)
    _record(s, f"{clients} cl", lat)


def _views_worker(s: Served) -> subprocess.Popen:
    """The tree's worker as scripts/serve.sh starts it, its queues including the views'."""
    cmd = [
        *PYTHON,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "-Q",
        # Model views have a queue of their own since the views worker (older trees ignore the name).
        "media,gpu,views",
        "-l",
        "warning",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]  # fmt: skip, as scripts/serve.sh
    worker = subprocess.Popen(cmd, cwd=s.tree, env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s.worker = worker  # type: ignore[attr-defined]
    return worker


def _step_units_with_views(s: Served, clients: int, n: int) -> None:
    """The units again with the views worker running through the load: views stored during the load
    (by their finished_at) against items compiled in it (views queued), both per second of the load."""
    worker = _views_worker(s)
    try:
        time.sleep(15)  # the worker's start-up (imports, broker), outside the measured window
        began = time.time()
        with Sampler(s):
            _, wall = _load(_units, s.port, s.people["annotators"], clients, n, s.units_done + 20_000 * clients)
        ended = time.time()
        s.units_done += clients * n
        got = json.loads(s.run(code=VIEWS_BETWEEN.format(start=began, end=ended)))
    finally:
        worker.terminate()
        worker.wait()
        s.worker = None  # type: ignore[attr-defined]
    s.figures[f"{clients} cl with the views worker: units (items compiled)/s"] = clients * n / wall
    s.figures[f"{clients} cl with the views worker: views queued/s"] = got["queued"] / (ended - began)
    s.figures[f"{clients} cl with the views worker: views stored/s"] = got["stored"] / (ended - began)
    s.figures[f"{clients} cl with the views worker: views not yet stored at the end"] = got["left"]
    if got["wait_p50"] is not None:
        s.figures[f"{clients} cl with the views worker: view wait p50 s"] = got["wait_p50"]
        s.figures[f"{clients} cl with the views worker: view wait p99 s"] = got["wait_p99"]


def _step_views(s: Served, seconds: float) -> None:
    """The backlog the units left, then what the tree's worker renders of it in `seconds`."""
    before = json.loads(s.run(code=VIEWS))
    worker = _views_worker(s)
    try:
        with Sampler(s):
            after = json.loads(s.run(code=VIEWS_WATCH.format(seconds=seconds)))
    finally:
        worker.terminate()
        worker.wait()
        s.worker = None  # type: ignore[attr-defined]
    s.figures["model views: backlog after the units"] = before["pending"]
    s.figures["model views: rendered/s by one worker, its start-up included"] = (
        after["succeeded"] - before["succeeded"]
    ) / after["watched_s"]
    # From the first view stored to the last (the worker's start-up left out), the backlog done or not.
    if after["first_to_last_s"] > 0:
        s.figures["model views: rendered/s, first to last"] = after["after_first"] / after["first_to_last_s"]
    s.figures["model views: backlog left"] = after["pending"] + after["running"]
    s.figures["model views: failed"] = after["failed"]


def _step_release(s: Served, n: int) -> None:
    got = json.loads(s.run(code=RELEASE.format(n=n)))
    if got["state"] != "frozen":
        print(f"  {s.name}: release build ended {got['state']}", flush=True)
    s.figures["release: items"] = got["items"]
    s.figures["release: freeze s"] = got["freeze_s"]
    s.figures["release: whole build s"] = got["build_s"]
    s.figures["release: build process peak RSS MB"] = got["peak_rss_mb"]
