"""Release build at the benchmark's size: 1,500 scenes and 17,903 approved items (LinkS2Bench's
counts), on the embedded default (SQLite) in a throwaway data folder, and releases of lettered items
(candidates drawn on the satellite image, drawn again by the build with new letters and in three
more rotations each).

For this tree and, with `--before REV`, a checkout of REV, in the same sitting (runs interleaved,
medians printed with the ratio this/before):
Every scene's video has a keyframe a second, each placed on the scene's image (bench data for the
with-CVAA variant; a tree before it ignores them).
- full size: the JSONL export (read the approved items, build the records, write items.jsonl; goal
  under 4.5 s), freezing the rows, the build job (every file, the media, the manifest, moving it
  into place; goal: freeze + build under 10 s), and the release on disk: its files, their bytes, and
  the bytes it adds to the disk (files that share their inode with stored media add none);
- lettered: `--lettered N ...` releases of N lettered items (Event Geo-localization, four candidate
  regions each) on two 1920 x 1080 satellite images, as the demo scenes have: freeze + build.

Each measurement runs in a process of its own (`--child`), which seeds its own database.

Usage: python bench/release.py [--scenes N] [--items N] [--lettered N ...] [--runs R] [--before REV] [--no-full]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TASKS = [
    ("target_visibility", "yes_no", ["yes", "no"]),
    ("scene_association", "multiple_choice", ["A region", "B region", "C region", "D region"]),
    ("zone_counting", "number", []),
    ("event_geolocalization", "multiple_choice", ["A", "B", "C", "D"]),
    ("trajectory_matching", "multiple_choice", ["1", "2", "3", "4"]),
    ("temporal_grounding", "timestamp", []),
    ("relative_distance", "multiple_choice", ["much closer", "closer", "about the same", "farther", "much farther"]),
    ("relative_direction", "multiple_choice", ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]),
    ("occlusion_attribution", "multiple_choice", ["tree", "building", "bridge", "vehicle"]),
    ("spatiotemporal_ordering", "multiple_choice", ["ABC", "ACB", "BAC", "BCA", "CAB", "CBA"]),
    ("region_interaction", "multiple_choice", ["enters", "passes by", "stays away"]),
    ("region_reachability", "yes_no", ["yes", "no"]),
]


def _setup(data: Path) -> None:
    # A throwaway database: the key signs nothing anyone keeps.
    os.environ.update(SKYMARK_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="config.settings")
    os.environ["SECRET_KEY"] = "bench-only-" + os.urandom(8).hex()
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _png(seed: int, size: tuple[int, int] = (64, 64), grain: bool = False) -> bytes:
    import io

    import numpy as np
    from PIL import Image

    if grain:  # ground-like texture, so decoding and JPEG encoding do real work
        rng = np.random.default_rng(seed)
        base = rng.integers(60, 200, (size[1] // 8, size[0] // 8, 3), dtype=np.uint8)
        pixels = np.kron(base, np.ones((8, 8, 1), dtype=np.uint8))
        pixels = (pixels + rng.integers(0, 24, pixels.shape, dtype=np.uint8)).astype(np.uint8)
        image = Image.fromarray(pixels, "RGB")
    else:
        image = Image.new("RGB", size, (seed % 256, (seed // 256) % 256, 90))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _scenes(n_scenes: int, image_size: tuple[int, int] = (64, 64), grain: bool = False) -> tuple[Any, list, list]:
    """Bulk rows with small real files: each scene its own video and satellite image."""
    from django.contrib.auth import get_user_model
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from annotator.models import SatelliteImage, Scene, Video

    admin = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench-only-password")
    videos, images = [], []
    for s in range(n_scenes):
        data = f"video {s}".encode() * 64
        name = default_storage.save(f"videos/bench-{s}.mp4", ContentFile(data))
        videos.append(
            Video(file=name, original_name=f"scene{s}.mp4", sha256=f"{s:064x}", size_bytes=len(data), duration_s=30.0)
        )
        # a real PNG: the TSV and the Parquet decode what they embed, lettered items are drawn on it
        image = default_storage.save(f"satellite/bench-{s}.png", ContentFile(_png(s, image_size, grain)))
        w, h = image_size
        images.append(
            SatelliteImage(file=image, original_name=f"scene{s}.png", sha256=f"{s + 10**6:064x}", width=w, height=h)
        )
    Video.objects.bulk_create(videos, batch_size=500)
    SatelliteImage.objects.bulk_create(images, batch_size=500)
    scenes = Scene.objects.bulk_create(
        [Scene(name=f"Scene {s:04d}", video=v, source_license="CC BY 4.0") for s, v in enumerate(videos)],
        batch_size=500,
    )
    Scene.satellite_images.through.objects.bulk_create(
        [
            Scene.satellite_images.through(scene_id=sc.id, satelliteimage_id=im.id)
            for sc, im in zip(scenes, images, strict=True)
        ]
    )
    _placed_keyframes(videos, images)
    return admin, scenes, images


def _placed_keyframes(videos: list, images: list) -> None:
    """A keyframe a second over each 30 s video, every one placed on its scene's image (one in three
    under the release's confidence threshold), as the with-CVAA variant reads them."""
    from annotator.models import Keyframe, KeyframePlacement

    frames = [
        Keyframe(video=v, index=i, time_s=float(i), image=f"keyframes/bench-{v.id}-{i}.jpg")
        for v in videos
        for i in range(31)
    ]
    Keyframe.objects.bulk_create(frames, batch_size=2000)
    image_of = {v.id: im for v, im in zip(videos, images, strict=True)}
    placements = []
    for k, frame in enumerate(frames):
        image = image_of[frame.video_id]
        x, y = k % max(1, image.width // 2), k % max(1, image.height // 2)
        w, h = image.width / 2, image.height / 2
        placements.append(
            KeyframePlacement(
                keyframe=frame,
                satellite_image=image,
                source="matching",
                quad=[[x, y], [x + w, y], [x + w, y + h], [x, y + h]],
                frame_width=64,
                frame_height=48,
                confidence=0.3 if k % 3 == 0 else 0.9,
                uncertainty_px=2.0,
            )
        )
    KeyframePlacement.objects.bulk_create(placements, batch_size=2000)


def _item(k: int, scene: Any, admin: Any, **fields: Any) -> Any:
    from annotator.models import Item

    return Item(scene=scene, author=admin, template=f"{fields['task']}.v1", seed=k, state=Item.State.APPROVED,
                question=f"Question {k} about the marked region in the drone video?", **fields)  # fmt: skip


def _seed_full(n_scenes: int, n_items: int) -> Any:
    from annotator.models import Item

    admin, scenes, images = _scenes(n_scenes)
    items = []
    for k in range(n_items):
        task, fmt, options = TASKS[k % len(TASKS)]
        answer = options[k % len(options)] if options else str(k % 17)
        mark = {"id": k, "version": 1, "kind": "polygon", "label": "car", "satellite_image": images[k % n_scenes].id,
                "geometry": {"type": "Polygon", "coordinates": [[[10, 10], [90, 10], [90, 60], [10, 10]]]},
                "time_start": 1.0, "time_end": 4.0, "vertex_times": [], "facts": {}}  # fmt: skip
        provenance = {"template": f"{task}.v1", "seed": k, "phrasing": k % 10, "marks": [mark]}
        fields = {"task": task, "options": options, "answer": answer, "answer_format": fmt, "provenance": provenance}
        items.append(_item(k, scenes[k % n_scenes], admin, **fields))
    Item.objects.bulk_create(items, batch_size=1000)
    return admin


def _square(cx: float, cy: float, r: float) -> dict[str, Any]:
    ring = [[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r], [cx - r, cy + r], [cx - r, cy - r]]
    return {"type": "Polygon", "coordinates": [ring]}


def _seed_lettered(n_items: int) -> Any:
    """Event Geo-localization items: four candidate regions lettered A-D within about 900 x 600 px
    of a 1920 x 1080 image, the key spread over the letters (the freeze still moves some)."""
    from annotator.models import Item

    admin, scenes, images = _scenes(2, (1920, 1080), grain=True)
    rng = random.Random(7)
    items = []
    for k in range(n_items):
        cx, cy = rng.uniform(500, 1400), rng.uniform(350, 700)
        spots = [_square(cx + rng.uniform(-450, 450), cy + rng.uniform(-300, 300), rng.uniform(20, 60)) for _ in "ABCD"]
        image = images[k % 2].id
        mark = {"id": k, "version": 1, "kind": "polygon", "label": "crossing", "satellite_image": image,
                "geometry": spots[0], "time_start": 1.0, "time_end": 4.0, "vertex_times": [], "facts": {}}  # fmt: skip
        candidates = [{"letter": letter, "geometry": g} for letter, g in zip("ABCD", spots, strict=True)]
        key = "ABCD"[rng.randrange(4)]
        provenance = {"template": "event_geolocalization.v1", "seed": k, "phrasing": k % 10, "marks": [mark],
                      "shown": [], "candidates": candidates, "key_position": "ABCD".index(key)}  # fmt: skip
        fields = {"task": "event_geolocalization", "options": list("ABCD"), "answer": key,
                  "answer_format": "multiple_choice", "provenance": provenance}  # fmt: skip
        items.append(_item(k, scenes[k % 2], admin, **fields))
    Item.objects.bulk_create(items, batch_size=1000)
    return admin


def _on_disk(root: Path) -> dict[str, float]:
    """Files and bytes of a release folder, and the bytes it adds to the disk: a file that shares its
    inode with stored media (a hard link) adds none."""
    files = [p for p in root.rglob("*") if p.is_file()]
    stats = [p.stat() for p in files]
    return {
        "files": len(files),
        "bytes": sum(s.st_size for s in stats),
        "new_bytes": sum(s.st_size for s in stats if s.st_nlink == 1),
    }


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that ended (the drawing pool): what a
    build costs, less sensitive than wall time to other work on a shared machine."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def child(mode: str, n_scenes: int, n_items: int) -> dict[str, float]:
    """One measurement in this process, with the project imported from the working directory."""
    sys.path.insert(0, os.getcwd())
    with tempfile.TemporaryDirectory(prefix="skymark-release-bench-") as tmp:
        _setup(Path(tmp))
        from django.core.files.storage import default_storage

        from annotator.models import Item
        from review.releasing import jobs
        from review.releasing.formats import write_jsonl
        from review.releasing.records import release_inputs
        from review.releasing.services import release_create

        admin = _seed_full(n_scenes, n_items) if mode == "full" else _seed_lettered(n_items)
        out: dict[str, float] = {}
        if mode == "full":
            approved = Item.objects.filter(state=Item.State.APPROVED)
            export = Path(tmp) / "items.jsonl"
            out["export_s"], _ = _timed(lambda: write_jsonl(export, release_inputs(approved).records))
        cpu = _cpu_s()
        out["freeze_s"], release = _timed(lambda: release_create(version="1.0", user=admin, enqueue=False))
        out["freeze_cpu_s"], cpu = _cpu_s() - cpu, _cpu_s()
        out["build_s"], built = _timed(lambda: jobs.release_run(release_id=release.id))
        out["build_cpu_s"] = _cpu_s() - cpu
        out["total_cpu_s"] = out["freeze_cpu_s"] + out["build_cpu_s"]
        out["total_s"] = out["freeze_s"] + out["build_s"]
        out.update(_on_disk(Path(default_storage.path(built.root))))
        return out


def _run(tree: Path, mode: str, scenes: int, items: int) -> dict[str, float]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--scenes", str(scenes),
           "--items", str(items)]  # fmt: skip
    done = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree} {mode} {items}: failed\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _checkout(rev: str, into: Path) -> Path:
    subprocess.run(["git", "worktree", "add", "--detach", str(into), rev], cwd=ROOT, check=True, capture_output=True)
    return into


ROWS = [
    ("export_s", "JSONL export (s)", "{:.2f}"),
    ("freeze_s", "freeze (s)", "{:.2f}"),
    ("build_s", "build job (s)", "{:.2f}"),
    ("total_s", "freeze + build (s)", "{:.2f}"),
    ("freeze_cpu_s", "freeze CPU (s)", "{:.2f}"),
    ("build_cpu_s", "build job CPU (s, all processes)", "{:.2f}"),
    ("total_cpu_s", "freeze + build CPU (s)", "{:.2f}"),
    ("files", "files in the release", "{:,.0f}"),
    ("bytes", "release size (MB)", "{:.1f}"),
    ("new_bytes", "bytes it adds to the disk (MB)", "{:.1f}"),
]


def _table(title: str, results: dict[str, list[dict[str, float]]]) -> None:
    names = list(results)
    print(f"\n{title} (median of {len(next(iter(results.values())))})")
    print(f"{'':<36}" + "".join(f"{n:>24}" for n in names) + ("   ratio" if len(names) == 2 else ""))
    for key, label, fmt in ROWS:
        if any(key not in r for runs in results.values() for r in runs):
            continue
        scale = 2**-20 if "bytes" in key else 1
        medians = [statistics.median(r[key] for r in results[n]) * scale for n in names]
        ratio = f"{medians[1] / medians[0]:>8.2f}x" if len(names) == 2 and medians[0] else ""
        print(f"{label:<36}" + "".join(f"{fmt.format(m):>24}" for m in medians) + ratio, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=1500)
    parser.add_argument("--items", type=int, default=17_903)
    parser.add_argument("--lettered", type=int, nargs="*", default=[96], help="sizes of the lettered releases")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-full", action="store_true", help="only the lettered releases")
    parser.add_argument("--before", help="a git revision to measure in the same sitting")
    parser.add_argument("--child", choices=("full", "lettered"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.scenes, args.items)))
        return
    with tempfile.TemporaryDirectory(prefix="skymark-before-") as tmp:
        trees = [(f"before ({args.before})", _checkout(args.before, Path(tmp) / "tree"))] if args.before else []
        trees.append(("this tree", ROOT))
        try:
            cases = [] if args.no_full else [("full", args.items, args.scenes)]
            cases += [("lettered", n, 2) for n in args.lettered]
            for mode, items, scenes in cases:
                results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
                for _ in range(args.runs):  # interleaved, so drift of the machine hits both alike
                    for name, tree in trees:
                        results[name].append(_run(tree, mode, scenes, items))
                title = f"{items:,} items, {scenes:,} scenes" if mode == "full" else f"{items} lettered items"
                _table(title, results)
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
