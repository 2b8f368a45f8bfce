"""What a killed run of a job left in storage, found and removed before the job runs again.

A step cleans up after itself when it fails, but a worker killed mid-step (SIGKILL, out of memory)
cleans nothing: files it stored are referenced by no row. Every step writes under folders of its
own (named by the video or image id), so anything there that the rows do not name is a leftover.
The job's lease guarantees that no other run of the same job is writing there at the time.
The model views follow the same rule under their own folders (folder_leftovers_remove, called when
a view is claimed again: annotator.compiling.modelview.render).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress

from django.core.files.storage import default_storage

from annotator.models import Keyframe, MediaJob, SatelliteImage, Video
from annotator.storage import delete_quietly, delete_tree_quietly

K = MediaJob.Kind


def _listdir(folder: str) -> tuple[list[str], list[str]]:
    with suppress(OSError, FileNotFoundError):
        return default_storage.listdir(folder)
    return [], []


def _stray_files(folder: str, keep: Iterable[str | None], *, stem: str | None = None) -> list[str]:
    """Files in `folder` not in `keep`; with `stem`, only those named `stem.*` or `stem_*` (the
    names storage gives when the plain one is taken)."""
    kept = {name for name in keep if name}
    files = _listdir(folder)[1]
    mine = [f for f in files if stem is None or f.startswith((f"{stem}.", f"{stem}_"))]
    return [f"{folder}/{f}" for f in mine if f"{folder}/{f}" not in kept]


def _video(job: MediaJob) -> Video | None:
    return Video.objects.filter(scene__id=job.scene_id).first() if job.scene_id else None


def _keyframes(job: MediaJob) -> list[str]:
    video = _video(job)
    if video is None:
        return []
    keep = Keyframe.objects.filter(video=video).values_list("image", flat=True)
    return _stray_files(f"keyframes/v{video.id}", keep)


def _filmstrip(job: MediaJob) -> list[str]:
    video = _video(job)
    if video is None:
        return []
    sprite, vtt, poster = video.filmstrip_sprite.name, video.filmstrip_vtt.name, video.poster.name
    return _stray_files(f"filmstrips/v{video.id}", [sprite, vtt]) + _stray_files(
        "posters", [poster], stem=f"v{video.id}"
    )


def _proxy(job: MediaJob) -> list[str]:
    video = _video(job)
    return [] if video is None else _stray_files("proxies", [video.proxy.name], stem=f"v{video.id}")


def _image(job: MediaJob) -> SatelliteImage | None:
    if not job.satellite_image_id:
        return None
    return SatelliteImage.objects.filter(id=job.satellite_image_id).first()


def _render(job: MediaJob) -> list[str]:
    image = _image(job)
    return [] if image is None else _stray_files("satellite/display", [image.display.name], stem=f"i{image.id}")


def _tiles(job: MediaJob) -> list[str]:
    """Tile pyramids are folders (tiles/i<id>/<run>); a stray one is removed whole."""
    image = _image(job)
    if image is None:
        return []
    home = f"tiles/i{image.id}"
    for run in _listdir(home)[0]:
        if f"{home}/{run}" != image.tiles_prefix:
            delete_tree_quietly(f"{home}/{run}")
    return []


def folder_leftovers_remove(home: str, keep: Iterable[str | None]) -> list[str]:
    """Remove what is stored under `home`, subfolders included, that `keep` does not name: a
    subfolder holding no kept file goes whole (a killed run's attempt folder). The caller's lease
    guarantees that no other run writes under `home` meanwhile. Returns what was removed (a folder
    as `folder/`)."""
    kept = {name for name in keep if name}
    dirs, files = _listdir(home)
    removed: list[str] = []
    for sub in (f"{home}/{d}" for d in dirs):
        if any(name.startswith(f"{sub}/") for name in kept):
            removed += folder_leftovers_remove(sub, kept)
        else:
            delete_tree_quietly(sub)
            removed.append(f"{sub}/")
    strays = [f"{home}/{f}" for f in files if f"{home}/{f}" not in kept]
    delete_quietly(strays)
    return removed + strays


# The kinds that store files; the others write rows only (replaced in one transaction).
STRAYS: dict[str, Callable[[MediaJob], list[str]]] = {
    K.KEYFRAMES: _keyframes,
    K.FILMSTRIP: _filmstrip,
    K.PROXY: _proxy,
    K.RENDER: _render,
    K.TILES: _tiles,
}


def job_leftovers_remove(*, job: MediaJob) -> list[str]:
    """Remove the files an earlier, killed run of `job` stored and no row names. Returns them."""
    find = STRAYS.get(job.kind)
    if find is None:
        return []
    strays = find(job)
    delete_quietly(strays)
    return strays
