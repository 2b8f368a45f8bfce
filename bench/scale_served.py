"""The servers bench/scale.py measures: one tree seeded, served as `make run` serves it, its
processes and their memory (sampled while a load runs). Imported by bench/scale.py (bench/ is first on
the path when it runs as a script)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from marks import PYTHON, ROOT, _env, _free_port, _serve
from scale_clients import _load, _reads
from webproc import _memory

PG = "postgres://postgres@127.0.0.1:5432"
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
CLIENTS = 8

# Runs in `manage.py shell` of the tree: sessions for 8 annotators and 8 reviewers, each annotator's
# scene to draw on and scene to read (another of theirs, with its seeded ~50 marks).
SESSIONS = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from annotator.models import Assignment, Scene
out = {"annotators": [], "reviewers": []}
for i in range(8):
    user = get_user_model().objects.get(username=f"annotator{i}")
    scenes = list(Assignment.objects.filter(annotator=user).order_by("scene_id").values_list("scene_id", flat=True)[:2])
    image = Scene.objects.get(id=scenes[0]).satellite_images.order_by("id").first().id
    c = Client(); c.force_login(user)
    out["annotators"].append({"session": c.cookies["sessionid"].value, "draw": scenes[0], "image": image,
                              "read": scenes[-1]})
    reviewer = get_user_model().objects.get(username=f"reviewer{i}")
    c = Client(); c.force_login(reviewer)
    out["reviewers"].append({"session": c.cookies["sessionid"].value})
print(json.dumps(out))
"""


@dataclass
class Served:
    name: str
    tree: Path
    env: dict[str, str]
    data: Path
    port: int = 0
    web: subprocess.Popen[bytes] | None = None
    people: dict[str, Any] = field(default_factory=dict)
    seeded: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)
    peak: dict[str, float] = field(default_factory=lambda: {"rss": 0.0, "pss": 0.0})
    units_done: int = 0
    backend: str = "embedded"

    def run(self, *args: str, code: str | None = None) -> str:
        cmd = [*PYTHON, *args] if code is None else [*PYTHON, "manage.py", "shell", "-c", code]
        out = subprocess.run(cmd, cwd=self.tree, env=self.env, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"{self.name}: {' '.join(args) or 'shell'} failed:\n{out.stderr[-3000:]}")
        return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""

    def pids(self) -> list[int]:
        """The server's processes: gunicorn master and workers, the Celery worker and its children."""
        found = []
        for proc in (self.web, getattr(self, "worker", None)):
            if proc is None or proc.poll() is not None:
                continue
            todo = [proc.pid]
            while todo:
                pid = todo.pop()
                found.append(pid)
                with contextlib.suppress(OSError):
                    todo += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return found

    def memory(self) -> tuple[float, float]:
        rss = pss = 0
        for pid in self.pids():
            with contextlib.suppress(OSError, KeyError):
                r, p = _memory(pid)
                rss, pss = rss + r, pss + p
        return rss / 1e6, pss / 1e6


def _environment(name: str, tree: Path, data: Path, backend: str) -> dict[str, str]:
    env = _env(tree, data)
    if backend == "postgres":
        env.update(DATABASE_URL=f"{PG}/bench_scale_{name}", REDIS_URL=REDIS, SKYMARK_BROKER_KEY_PREFIX=f"bench-{name}-")
    return env


def _prepare(s: Served, backend: str, scale: float, key: str) -> None:
    if backend == "postgres":
        db = f"bench_scale_{key}"
        for sql in (f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}"):
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True, capture_output=True)
    s.run("manage.py", "migrate", "--noinput")
    s.seeded = json.loads(s.run(str(ROOT / "bench" / "scale_seed.py"), json.dumps({"scale": scale})))
    if backend == "postgres":
        # What autovacuum does to freshly loaded tables in a deployment; this machine's server runs
        # with autovacuum off, and with no statistics the planner read a scene's marks in 500 ms, not 14.
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", db, "-qc", "ANALYZE"], check=True)
    s.people = json.loads(s.run(code=SESSIONS))
    s.port = _free_port()
    s.web = _serve(s.tree, s.data, s.port, env=s.env)
    _load(_reads, s.port, s.people["annotators"], CLIENTS, 2, 0)  # warm every worker


class Sampler:
    """Peak memory of a server's processes, sampled while a load runs."""

    def __init__(self, served: Served) -> None:
        self.served, self.stop = served, threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            rss, pss = self.served.memory()
            self.served.peak["rss"] = max(self.served.peak["rss"], rss)
            self.served.peak["pss"] = max(self.served.peak["pss"], pss)
            time.sleep(0.25)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join()
