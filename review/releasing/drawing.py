"""Lettered images a release draws itself: when the freeze letters an item's candidates anew
(ordering.py), or a circular rotation shows them in another order (formats/variants.py), the
picture must carry the letters the options carry. The drawing is the model view's own
(annotator.compiling.modelview: the plan from the provenance, then the same draw calls), so a
release's images look like the reviewed ones; only the lettering differs.

- at the freeze, `lettered_media` points a record at the files the build will draw and takes the
  stored ones off the copy list;
- at the build, `write` draws every record (original or rotation) whose lettered view is not
  copied. The same records and satellite images give the same bytes.

What made this slow was decoding: every picture (a view and four options, in four rotations) opened
and decoded the whole satellite image again. Here each worker decodes an image once, cuts each
candidate box out of it once, and draws every set with that cut from the small uncompressed copy,
with the model view's own drawing; the sets are spread over a process per CPU."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

OpenMedia = Callable[[str], IO[bytes]]
LocalSource = Callable[[str], Path | None]
# Sets of lettered pictures per worker task at least: each task decodes its satellite image once.
MIN_CHUNK = 6
# Bytes of decoded satellite images the drawing processes may hold at once, per image.
DECODE_BUDGET = 2 << 30


def item_folder(uid: str, rotation: int = 0) -> str:
    return f"media/items/{uid}" + (f"/r{rotation}" if rotation else "")


def is_lettered(record: dict[str, Any]) -> bool:
    return bool(record.get("provenance", {}).get("candidates"))


def lettered_paths(record: dict[str, Any], folder: str) -> dict[str, Any]:
    """The media of a lettered record drawn into `folder`: the view and one image per option."""
    return {
        "images": [f"{folder}/view.jpg"],
        "option_images": [{"option": o, "image": f"{folder}/option-{o}.jpg"} for o in record["options"]],
    }


def needs_drawing(record: dict[str, Any]) -> bool:
    """A lettered record whose stored model view does not show its letters: reordered by the
    freeze, or with no stored option images at all."""
    if not is_lettered(record):
        return False
    order = record["provenance"].get("release", {}).get("order")
    moved = order is not None and order != list(range(len(order)))
    return moved or not record["media"].get("option_images")


def lettered_media(record: dict[str, Any], media: dict[str, str]) -> None:
    """At the freeze: point a record that needs drawing at the files the build draws, and drop the
    stored ones (drawn with other letters) from `media`, the copy list."""
    if not needs_drawing(record):
        return
    folder = item_folder(record["id"])
    stale = [record["media"].get("images", [])[:1], [o["image"] for o in record["media"].get("option_images", [])]]
    for path in (p for group in stale for p in group):
        if path.startswith(f"{folder}/"):
            media.pop(path, None)
    record["media"] = {**record["media"], **lettered_paths(record, folder)}


def drawn_on(record: dict[str, Any]) -> int | None:
    """The satellite image the record's marks (and so its candidates) are drawn on."""
    marks = record.get("provenance", {}).get("marks") or []
    return marks[0].get("satellite_image") if marks else None


def to_draw(record: dict[str, Any], copied: Any) -> bool:
    """The build draws this record's model view: its view is not a stored file it copies (lettered
    anew by the freeze, a rotation, or an item whose view job had not run at the freeze)."""
    images = record["media"].get("images") or []
    return bool(images) and images[0] not in copied


@contextmanager
def _local_files(open_media: OpenMedia, local_source: LocalSource) -> Iterator[Callable[[str], Path]]:
    """Stored files as local paths: on this disk as they are, else each copied out once, on first use."""
    folder = Path(tempfile.mkdtemp(prefix="skymark-letters-"))
    copies: dict[str, Path] = {}

    def local(stored: str) -> Path:
        if stored not in copies:
            on_disk = local_source(stored)
            if on_disk is None:
                on_disk = folder / f"{len(copies)}{Path(stored).suffix}"
                with open_media(stored) as src, on_disk.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            copies[stored] = on_disk
        return copies[stored]

    try:
        yield local
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Job:
    """One model view: the view and the option images of `plan`, cut to `crop`, drawn into `out`,
    and the segment `cut` (video, start, end) when there is one."""

    plan: Any  # annotator.compiling.modelview.Plan
    crop: tuple[int, int, int, int] | None
    out: Path
    cut: tuple[Path, float, float] | None = None


def _plan_in_cut(plan: Any, left: int, top: int) -> Any:
    """The plan with every shape moved into a picture that starts at (left, top) of the image."""
    from media_tools.imagery import Shape
    from media_tools.imagery.modelview import shifted

    moved = {id(s): Shape(shifted(s.geometry, -left, -top), s.name, s.times) for s in plan.shapes}
    options = [(name, moved.get(id(s)) or Shape(shifted(s.geometry, -left, -top), s.name, s.times), colour)
               for name, s, colour in plan.options]  # fmt: skip
    return replace(plan, shapes=[moved[id(s)] for s in plan.shapes], options=options)


def draw_jobs(src: Path, jobs: list[Job], max_pixels: int) -> int:
    """Draw `jobs`, all on the image `src`, decoding it once: each cut is taken from the decoded
    image once and saved uncompressed, and every job with that cut draws from the small copy (the
    pixels are the same as cutting the whole image each time, which decoded it once per picture).
    Runs in a worker process; touches no database. Returns how many sets it drew."""
    from annotator.compiling.modelview import draw_images
    from media_tools.imagery.base import open_rgb
    from media_tools.imagery.modelview import MAX_VIEW_SIDE, OPTION_MAX_SIDE

    base = None
    with tempfile.TemporaryDirectory(prefix="skymark-cuts-") as tmp:
        cuts: dict[tuple[int, int, int, int], Path] = {}
        for job in jobs:
            source, plan, crop = src, job.plan, job.crop
            if crop is not None:
                if crop not in cuts:
                    base = base if base is not None else open_rgb(src, max_pixels)
                    cuts[crop] = Path(tmp) / f"cut{len(cuts)}.ppm"
                    base.crop(crop).save(cuts[crop])
                source, plan = cuts[crop], _plan_in_cut(plan, crop[0], crop[1])
                crop = (0, 0, crop[2] - crop[0], crop[3] - crop[1])
            job.out.mkdir(parents=True, exist_ok=True)
            draw_images(plan, source, job.out, crop=crop, side=MAX_VIEW_SIDE, option_side=OPTION_MAX_SIDE,
                        on_progress=lambda _f: None)  # fmt: skip
            if job.cut is not None:
                _cut_segment(*job.cut, job.out / "segment.mp4")
    return len(jobs)


def _cut_segment(video: Path, start: float, end: float, out: Path) -> None:
    """The item's segment, cut as the model view job cuts it."""
    from django.conf import settings

    import media_tools
    from media_tools.video import cut_segment

    info = media_tools.probe_video(video, ffprobe_bin=settings.SKYMARK_FFPROBE)
    cut_segment(video, out, info=info, start_s=start, end_s=end, ffmpeg_bin=settings.SKYMARK_FFMPEG,
                ffprobe_bin=settings.SKYMARK_FFPROBE)  # fmt: skip


def _chunks(jobs: list[Job], parts: int) -> list[list[Job]]:
    """Up to `parts` runs of jobs, those with the same cut (an item's rotations) kept together."""
    jobs = sorted(jobs, key=lambda j: (j.crop or (0, 0, 0, 0), str(j.out)))
    size = max(MIN_CHUNK, -(-len(jobs) // parts))
    return [jobs[i : i + size] for i in range(0, len(jobs), size)]


def worker_count() -> int:
    """The processes a build draws with: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_parallel(tasks: list[tuple[Callable[..., Any], tuple[Any, ...]]], workers: int) -> None:
    """Run `tasks` (function, arguments) in a pool of `workers` processes, or here when one is enough.
    Forked, so the workers share what this process has loaded; they touch no database. Each task
    writes its own files, so the outcome does not depend on the order they finish in; the first
    failure is raised."""
    workers = min(workers, len(tasks))
    if workers <= 1:
        for fn, args in tasks:
            fn(*args)
        return
    with _may_have_children(), ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for future in [pool.submit(fn, *args) for fn, args in tasks]:
            future.result()


@contextmanager
def _may_have_children() -> Iterator[None]:
    """Let a daemonic process (a Celery prefork worker) start the pool: multiprocessing refuses
    children there so that none outlives it, and this pool is joined before the block ends (its
    workers also exit when their parent's pipe closes)."""
    me = multiprocessing.current_process()
    daemonic = me._config.get("daemon")  # type: ignore[attr-defined]
    me._config["daemon"] = False  # type: ignore[attr-defined]
    try:
        yield
    finally:
        me._config["daemon"] = daemonic  # type: ignore[attr-defined]


def _wanted(records: list[dict[str, Any]], copied: set[str]) -> list[dict[str, Any]]:
    """The records whose pictures the build draws, one per view name (a rotation of an item without
    letters shows the item's own pictures)."""
    seen: set[str] = set()
    out = []
    for record in records:
        if to_draw(record, copied) and record["media"]["images"][0] not in seen:
            seen.add(record["media"]["images"][0])
            out.append(record)
    return out


def jobs_for(
    wanted: list[dict[str, Any]], work: Path, *, images: dict[str, str], cut_from: dict[str, str], local: Any
) -> dict[str, list[Job]]:
    """Satellite image id (text) -> the model views to draw on it."""
    from annotator.compiling.modelview import lettered_crop, view_plan
    from annotator.models import SatelliteImage

    ids = {int(i) for i in (drawn_on(r) for r in wanted) if i is not None}
    # The cut around the candidates is the model view's (their box, inside the image's data).
    rows = {str(im.id): im for im in SatelliteImage.objects.filter(id__in=ids)}
    jobs: dict[str, list[Job]] = {}
    for record in wanted:
        image_id = str(drawn_on(record))
        if image_id not in images:
            raise ValueError(f"{record['id']}: no satellite image to draw its model view on")
        plan = view_plan(record["provenance"])
        crop = lettered_crop(plan, rows[image_id]) if image_id in rows else None
        out = work / record["media"]["images"][0].rsplit("/", 1)[0]
        segment = record["media"].get("segment_s")
        cut = None
        if record["id"] in cut_from and segment:  # rotations show the item's own segment
            cut = (local(cut_from[record["id"]]), float(segment[0]), float(segment[1]))
        jobs.setdefault(image_id, []).append(Job(plan, crop, out, cut))
    return jobs


def _parts(jobs: dict[str, list[Job]], workers: int) -> dict[str, int]:
    """How many tasks each image's sets are split into: one per worker, but no more decoded copies
    of a large image at once than DECODE_BUDGET holds (an orthophoto of 20,000 px a side is 1.2 GB
    decoded)."""
    from annotator.models import SatelliteImage

    rows = SatelliteImage.objects.filter(id__in=[int(k) for k in jobs]).values_list("id", "width", "height")
    sizes = {str(i): w * h * 3 for i, w, h in rows}
    return {k: max(1, min(workers, DECODE_BUDGET // max(1, sizes.get(k, 0)))) for k in jobs}


def _names(record: dict[str, Any], cut_from: dict[str, str]) -> list[str]:
    media = record["media"]
    names = [media["images"][0], *(o["image"] for o in media["option_images"])]
    return names + ([media["video"]] if record["id"] in cut_from and media.get("segment_s") else [])


def write(
    work: Path,
    records: list[dict[str, Any]],
    *,
    copied: set[str],
    images: dict[str, str],
    open_media: OpenMedia,
    local_source: LocalSource = lambda _name: None,
    cut_from: dict[str, str] | None = None,
    workers: int | None = None,
) -> list[str]:
    """Draw the model view (view, option images, segment) of every record whose view is not in
    `copied`, in `workers` processes (the CPUs by default), each file at its record's name under
    `work`. `images`: satellite image id (text) -> storage name of what is drawn on; `cut_from`: uid
    -> the stored video its segment is cut from. Returns the names drawn, sorted."""
    from django.conf import settings

    cut_from = cut_from or {}
    wanted = _wanted(records, copied)
    workers = workers or worker_count()
    with _local_files(open_media, local_source) as local:
        jobs = jobs_for(wanted, work, images=images, cut_from=cut_from, local=local)
        parts = _parts(jobs, workers)
        tasks: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
            (draw_jobs, (local(images[image_id]), chunk, settings.SKYMARK_MAX_IMAGE_PIXELS))
            for image_id, group in sorted(jobs.items())
            for chunk in _chunks(group, parts[image_id])
        ]
        run_parallel(tasks, workers)
    return sorted({name for r in wanted for name in _names(r, cut_from)})
