"""Model views at the benchmark's pace, on the embedded default (SQLite, filesystem broker), through
the real path: items compiled by the compile service (each in its own transaction, as annotators
compile them), their views queued on commit, rendered by the workers `make run` starts for that
tree, stored through Django's storage.

For each tree (this one, and `--before REV` checked out beside it, measured in the same sitting,
before first), in a throwaway data folder of its own each time:
- render loops: R views of one satellite image rendered one after the other in one process by the
  render service (a claim each, as a sync render), then R more by the worker's drain (claims of a
  few views), per-view milliseconds; the trees take turns, `--rounds` times each, and the median is
  shown, as the load of a shared machine drifts;
- drain: N items compiled over a few satellite images as fast as one process compiles them, with
  the tree's workers running (this tree: a media worker and a views worker with a process per core
  but one; before: the one worker of that tree's `make run`); views/s from the first compile to the
  last view stored, how long the backlog took to drain after the last compile, each view's wait
  (queued to stored: median and longest) and the most files the broker's queue folder held.

Usage: python bench/modelviews.py [--items N] [--images K] [--size WxH] [--render-loop R] [--rounds N]
                                  [--view-workers P] [--before REV] [--loops-only]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


# ---- the child: one tree, one data folder ------------------------------------------------------


def _setup(tree: Path, data: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "SKYMARK_DATA_DIR": str(data),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": "bench-only-" + os.urandom(8).hex(),  # a throwaway database: it signs nothing kept
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    for name in ("DATABASE_URL", "REDIS_URL", "SKYMARK_BROKER_KEY_PREFIX", "MEDIA_ROOT", "CELERY_BROKER_DIR"):
        env.pop(name, None)
    os.environ.clear()
    os.environ.update(env)
    sys.path.insert(0, str(tree))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def _textured_png(width: int, height: int, seed: int) -> bytes:
    """Ripples and grain: decoding and JPEG encoding do the work a real orthophoto asks."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    bands = [128 + 90 * np.sin(xx / (29.0 + 7 * k) + seed) * np.cos(yy / (17.0 + 5 * k)) for k in range(3)]
    pixels = np.clip(np.stack(bands, -1) + rng.integers(-25, 25, (height, width, 3)), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def _seed(n_items: int, n_images: int, size: str) -> tuple[Any, list[tuple[str, int]]]:
    """K scenes, each with its own satellite image (size: WxH) and a stand-in video file, given to
    one annotator, and one mark per item: regions (Target Visibility: the whole image drawn) and
    event points (Event Geo-localization: the candidates' cut, four option images) in turn."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from annotator.models import Assignment, Mark, SatelliteImage, Scene, Video

    width, height = (int(v) for v in size.split("x"))
    user = get_user_model().objects.create_user("bench-annotator")
    user.groups.add(Group.objects.get(name="annotator"))
    try:  # since projects, an assignment counts only in a project the annotator is a member of
        from annotator.models import ProjectMembership, project_default_id

        ProjectMembership.objects.create(project_id=project_default_id(), user=user, role="annotator")
    except ImportError:  # a tree from before projects
        pass
    scenes = []
    for k in range(n_images):
        data = f"video {k}".encode() * 64
        video = Video.objects.create(
            file=default_storage.save(f"videos/bench-{k}.mp4", ContentFile(data)),
            original_name=f"scene{k}.mp4",
            sha256=f"{k:064x}",
            size_bytes=len(data),
            duration_s=30.0,
        )
        png = _textured_png(width, height, k)
        image = SatelliteImage.objects.create(
            file=default_storage.save(f"satellite/bench-{k}.png", ContentFile(png)),
            original_name=f"map{k}.png",
            sha256=f"{k + 10**6:064x}",
            width=width,
            height=height,
        )
        scene = Scene.objects.create(name=f"Scene {k}", video=video)
        scene.satellite_images.add(image)
        Assignment.objects.create(scene=scene, annotator=user)
        scenes.append((scene, image))
    marks, plan = [], []
    for n in range(n_items):
        scene, image = scenes[n * n_images // n_items]  # consecutive items share an image, as batches do
        x, y = 200 + (n * 37) % (width - 500), 200 + (n * 53) % (height - 500)
        if n % 2 == 0:
            ring = [[x, y], [x + 180, y], [x + 180, y + 140], [x, y + 140], [x, y]]
            geometry = {"type": "Polygon", "coordinates": [ring]}
            marks.append(Mark(scene=scene, satellite_image=image, author=user, kind="polygon", geometry=geometry,
                              label="pier", time_start=0.0, time_end=1.5, facts={"visible": n % 4 == 0}))  # fmt: skip
            plan.append("target_visibility")
        else:
            marks.append(Mark(scene=scene, satellite_image=image, author=user, kind="point",
                              geometry={"type": "Point", "coordinates": [x, y]}, label="car", time_start=1.0,
                              time_end=None, facts={"event": "the car turns around"}))  # fmt: skip
            plan.append("event_geolocalization")
    made = Mark.objects.bulk_create(marks)
    return user, [(task, m.id) for task, m in zip(plan, made, strict=True)]


def _compile(user: Any, work: list[tuple[str, int]]) -> list[int]:
    from annotator.compiling.services import item_compile

    return [item_compile(user=user, task=task, mark_ids=[mark_id], seed=n).id for n, (task, mark_id) in enumerate(work)]


def _render_loop(user: Any, work: list[tuple[str, int]]) -> dict[str, float]:
    """Per-view ms over views of one image, nothing else running, two ways: the render service one
    view at a time (a sync render: a claim and a store of its own each), then the worker's drain
    (claims of a few views, in one process) over as many other views of the same items' kind."""
    from annotator.compiling.modelview import model_view_render
    from annotator.models import ModelView
    from config.celery import app

    items = _compile(user, work)
    app.control.purge()  # the messages their commits sent: rendered here instead
    ids = list(ModelView.objects.filter(item_id__in=items).order_by("id").values_list("id", flat=True))
    one, many = ids[: len(ids) // 2], ids[len(ids) // 2 :]
    start = time.perf_counter()
    for view_id in one:
        model_view_render(view_id=view_id)
    took = time.perf_counter() - start
    result = {"render_ms": 1000 * took / len(one)}
    try:
        from annotator.compiling.modelview import model_views_drain
    except ImportError:  # a tree from before the views queue: one view per message
        model_views_drain = None
    if model_views_drain is not None:
        start = time.perf_counter()
        model_views_drain(limit=len(many))  # a limit: some trees stop after one claim without one
        result["drain_ms"] = 1000 * (time.perf_counter() - start) / len(many)
    else:
        many = []
    failed = ModelView.objects.filter(id__in=one + many).exclude(state="succeeded").count()
    if failed:
        raise SystemExit(f"render loop: {failed} view(s) not rendered")
    return result


def _worker_commands(tree: Path, view_workers: int) -> list[list[str]]:
    """The workers this tree's `make run` starts (scripts/serve.sh): with a views queue, a media
    worker and a views worker; else the one worker of media and gpu."""
    base = [PYTHON, "-m", "celery", "-A", "config", "worker", "-l", "info", "--without-gossip", "--without-mingle",
            "--without-heartbeat"]  # fmt: skip
    media = [*base, "-n", "media@%h", "--pool=solo", "-Q", "media,gpu"]
    if '"views"' not in (tree / "config/settings/celery.py").read_text():
        return [media]
    return [media, [*base, "-n", "views@%h", "--pool=prefork", "--concurrency", str(view_workers), "-Q", "views"]]


def _start_workers(tree: Path, env: dict[str, str], data: Path, view_workers: int) -> list[subprocess.Popen]:
    procs = []
    for n, cmd in enumerate(_worker_commands(tree, view_workers)):
        log = data / f"worker{n}.log"
        procs.append(subprocess.Popen(cmd, cwd=tree, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT))
        while " ready." not in log.read_text(errors="replace"):
            if procs[-1].poll() is not None:
                raise SystemExit(f"worker {n} exited:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
    return procs


def _drain(
    tree: Path, env: dict[str, str], data: Path, user: Any, work: list[tuple[str, int]], view_workers: int
) -> dict:
    from django.db.models import F

    from annotator.models import ModelView

    procs = _start_workers(tree, env, data, view_workers)
    queue_dir = data / "broker" / "queue"
    peak_files = 0
    try:
        start = time.perf_counter()
        items = _compile(user, work)
        compiled = time.perf_counter()
        views = ModelView.objects.filter(item_id__in=items)
        while views.filter(state__in=["pending", "running"]).exists():
            peak_files = max(peak_files, len(os.listdir(queue_dir)))
            time.sleep(0.5)
        done = time.perf_counter()
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=60)
    failed = views.exclude(state="succeeded").count()
    waits = sorted(
        w.total_seconds() for w in views.annotate(w=F("finished_at") - F("created_at")).values_list("w", flat=True)
    )
    return {
        "compile_s": compiled - start,
        "total_s": done - start,
        "drain_after_compile_s": done - compiled,
        "views_per_s": len(items) / (done - start),
        "compiled_per_s": len(items) / (compiled - start),
        "wait_p50_s": statistics.median(waits),
        "wait_max_s": waits[-1],
        "peak_queue_files": peak_files,
        "failed": failed,
    }


def child(tree: Path, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="skymark-views-bench-") as tmp:
        data = Path(tmp)
        env = _setup(tree, data)
        if args.mode == "loop":
            user, work = _seed(2 * args.render_loop, 1, args.size)
            result = _render_loop(user, work)
        else:
            user, work = _seed(args.items, args.images, args.size)
            result = _drain(tree, env, data, user, work, args.view_workers)
        print("RESULT " + json.dumps(result), flush=True)


# ---- the parent: each tree in a child process, then the table -----------------------------------


def _measure(name: str, tree: Path, mode: str, args: argparse.Namespace) -> dict:
    print(f"{name}: {mode} ...", flush=True)
    cmd = [PYTHON, str(Path(__file__).resolve()), "--child", str(tree), "--mode", mode, "--items", str(args.items),
           "--images", str(args.images), "--size", args.size, "--render-loop", str(args.render_loop),
           "--view-workers", str(args.view_workers)]  # fmt: skip
    out = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode or not lines:
        raise SystemExit(f"{name} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def _run_all(trees: list[tuple[str, Path]], args: argparse.Namespace) -> dict[str, dict]:
    """Render loops taken in turns (the machine's load drifts; the median of each tree's rounds is
    shown), then each tree's drain."""
    results: dict[str, dict] = {name: {} for name, _ in trees}
    loops: dict[str, dict[str, list[float]]] = {name: {} for name, _ in trees}
    for _ in range(args.rounds):
        for name, tree in trees:
            for key, ms in _measure(name, tree, "loop", args).items():
                loops[name].setdefault(key, []).append(ms)
    for name, tree in trees:
        results[name].update({key: statistics.median(v) for key, v in loops[name].items()})
        if not args.loops_only:
            results[name].update(_measure(name, tree, "drain", args))
    return results


ROWS = [
    ("render loop, one view at a time, ms per view (median of the rounds)", "render_ms", "{:.1f}", True),
    ("drain loop (the worker's claims, in one process), ms per view", "drain_ms", "{:.1f}", True),
    ("compiled items per s", "compiled_per_s", "{:.1f}", False),
    ("views per s (first compile to last view)", "views_per_s", "{:.1f}", False),
    ("backlog drain after the last compile, s", "drain_after_compile_s", "{:.1f}", True),
    ("view wait, median s", "wait_p50_s", "{:.1f}", True),
    ("view wait, longest s", "wait_max_s", "{:.1f}", True),
    ("most files in the broker's queue folder", "peak_queue_files", "{:d}", True),
    ("views not rendered", "failed", "{:d}", True),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=2000, help="items compiled while the workers run")
    parser.add_argument("--images", type=int, default=4, help="satellite images (scenes) they are spread over")
    parser.add_argument("--size", default="1920x1080", help="each satellite image, WxH px (the demo's frames)")
    parser.add_argument("--render-loop", type=int, default=100, help="views rendered one after the other")
    parser.add_argument("--view-workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--before", help="a git revision to measure in the same sitting")
    parser.add_argument("--rounds", type=int, default=3, help="render loops per tree, taken in turns")
    parser.add_argument("--loops-only", action="store_true", help="the render loops, without the workers' drain")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("loop", "drain"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args)
        return
    print(f"{os.cpu_count()} cores; {args.items} items over {args.images} images of {args.size} px; "
          f"render loop of {args.render_loop} x {args.rounds} rounds; views worker processes (this tree): "
          f"{args.view_workers}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="skymark-before-") as tmp:
        trees = [("this tree", ROOT)]
        if args.before:
            before = Path(tmp) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True,
                           capture_output=True)  # fmt: skip
            trees.insert(0, ("before", before))
        try:
            results = _run_all(trees, args)
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    names = list(results)
    print(f"\n| measure | {' | '.join(names)} |" + (" this tree, times better |" if len(names) == 2 else ""))
    print("|---|" + "---|" * len(names) + ("---|" if len(names) == 2 else ""))
    for label, key, fmt, lower_better in ROWS:
        if not all(key in results[n] for n in names):
            continue
        cells = [fmt.format(results[n][key]) for n in names]
        ratio = ""
        if len(names) == 2:
            a, b = results["before"][key], results["this tree"][key]
            ratio = f" {(a / b if lower_better else b / a):.1f}× |" if (a and b) else " – |"
        print(f"| {label} | {' | '.join(cells)} |" + ratio)


if __name__ == "__main__":
    main()
