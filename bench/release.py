"""Release build at the benchmark's size: 1,500 scenes and 17,903 approved items (LinkS2Bench's
counts), on the embedded default (SQLite) in a throwaway data folder.

Times each step in a process of its own, with how much its resident memory grew (peak):
- the JSONL export: read the approved items with what a record needs, build the records, write
  items.jsonl; goal under 4.5 s (Label Studio 1.23.2 took 13.7 s for its JSON export of the same
  count on this machine class);
- freezing the rows (records, splits, one ReleaseItem per item), then each format of the build;
- baseline in the same run: Django's own JSON serializer over the same Item rows (what a generic
  export gives without records, media paths or provenance).

Usage: python bench/release.py [--scenes N] [--items N]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
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


def _png(seed: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (seed % 256, (seed // 256) % 256, 90)).save(buffer, format="PNG")
    return buffer.getvalue()


def _seed(n_scenes: int, n_items: int) -> Any:
    """Bulk rows with small real files: each scene its own video and satellite image."""
    from django.contrib.auth import get_user_model
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from annotator.models import Item, SatelliteImage, Scene, Video

    admin = get_user_model().objects.create_superuser("bench", "bench@example.org", "bench-only-password")
    videos, images = [], []
    for s in range(n_scenes):
        data = f"video {s}".encode() * 64
        name = default_storage.save(f"videos/bench-{s}.mp4", ContentFile(data))
        videos.append(
            Video(file=name, original_name=f"scene{s}.mp4", sha256=f"{s:064x}", size_bytes=len(data), duration_s=30.0)
        )
        # a real (small) PNG: the TSV and the Parquet decode what they embed
        image = default_storage.save(f"satellite/bench-{s}.png", ContentFile(_png(s)))
        images.append(
            SatelliteImage(
                file=image, original_name=f"scene{s}.png", sha256=f"{s + 10**6:064x}", width=2048, height=2048
            )
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
    items = []
    for k in range(n_items):
        task, fmt, options = TASKS[k % len(TASKS)]
        answer = options[k % len(options)] if options else str(k % 17)
        mark = {"id": k, "version": 1, "kind": "polygon", "label": "car", "satellite_image": images[k % n_scenes].id,
                "geometry": {"type": "Polygon", "coordinates": [[[10, 10], [90, 10], [90, 60], [10, 10]]]},
                "time_start": 1.0, "time_end": 4.0, "vertex_times": [], "facts": {}}  # fmt: skip
        items.append(
            Item(
                scene=scenes[k % n_scenes],
                author=admin,
                task=task,
                question=f"Question {k} about the marked region in the drone video?",
                options=options,
                answer=answer,
                answer_format=fmt,
                template=f"{task}.v1",
                seed=k,
                provenance={"template": f"{task}.v1", "seed": k, "phrasing": k % 10, "marks": [mark]},
                state=Item.State.APPROVED,
            )
        )
    Item.objects.bulk_create(items, batch_size=1000)
    return admin


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _measure(name: str, fn: Callable[[], Any], rows: list[tuple[str, float, float]]) -> None:
    """Run one step in a forked child: its wall time, and how far its resident memory rose above
    what it inherited (ru_maxrss of the child minus its size at the fork). Tracing allocations
    instead would slow these allocation-heavy steps several times over."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        from django.db import connections

        connections.close_all()  # never share the parent's SQLite connection
        start_rss = _rss_mb()
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - start_rss
        os.write(write, f"{took} {peak}".encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    if status or not data:
        raise SystemExit(f"{name}: the step failed in its process")
    took, peak = (float(x) for x in data.split())
    rows.append((name, took, peak))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=1500)
    parser.add_argument("--items", type=int, default=17_903)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skymark-release-bench-") as tmp:
        _setup(Path(tmp))
        from django.core import serializers

        from annotator.models import Item
        from review.models import Release
        from review.releasing import build, datasheet, jobs
        from review.releasing.formats import canonical, geo, tsv, variants, write_jsonl
        from review.releasing.records import release_inputs
        from review.releasing.services import release_create

        print(f"seeding {args.scenes} scenes and {args.items} approved items ...", flush=True)
        admin = _seed(args.scenes, args.items)
        rows: list[tuple[str, float, float]] = []
        out = Path(tmp) / "out"
        out.mkdir()

        def export_jsonl() -> Path:
            inputs = release_inputs(Item.objects.filter(state=Item.State.APPROVED))
            return write_jsonl(out / "items.jsonl", inputs.records)

        _measure(
            "baseline: django.core.serializers json", lambda: serializers.serialize("json", Item.objects.all()), rows
        )
        _measure("JSONL export (query + records + write)", export_jsonl, rows)
        _measure(
            "freeze rows (records, splits, ReleaseItem)",
            lambda: release_create(version="1.0", user=admin, enqueue=False),
            rows,
        )
        release = Release.objects.get(version="1.0")
        records = [e.record for e in release.entries.order_by("uid")]
        sources = release.sources
        fmt_dir = Path(tmp) / "formats"

        def read_media(path: str) -> bytes:
            from django.core.files.storage import default_storage

            with default_storage.open(sources["media"][path], "rb") as fh:
                return fh.read()

        _measure(
            "canonical + questions + HF data + card",
            lambda: canonical.write(fmt_dir, version="1.0", records=records, licenses=[], read_media=read_media),
            rows,
        )
        _measure("VLMEvalKit TSV", lambda: tsv.write(fmt_dir / "skymark.tsv", records, read_media), rows)
        _measure("variants (circular, no-visual)", lambda: variants.write(fmt_dir, records), rows)
        _measure("GeoJSON + Moving Features", lambda: geo.write(fmt_dir, records, sources.get("georefs", {})), rows)
        _measure(
            "datasheet (HTML + figures)",
            lambda: datasheet.write(fmt_dir, version="1.0", records=records, sources=sources),
            rows,
        )
        _measure(
            "whole build job (all files, media, manifest, move)", lambda: jobs.release_run(release_id=release.id), rows
        )
        print(f"\n{'step':<52}{'seconds':>9}{'RSS +MB':>9}")
        for name, took, peak in rows:
            print(f"{name:<52}{took:>9.2f}{peak:>9.1f}")
        baseline, export = rows[0][1], rows[1][1]
        print(f"\nJSONL export / Django serializer baseline: {export / baseline:.2f}x; goal: export < 4.5 s -> "
              f"{'met' if export < 4.5 else 'NOT met'} ({export:.2f} s); builder {build.BUILDER}")  # fmt: skip


if __name__ == "__main__":
    main()
