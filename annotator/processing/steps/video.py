"""Job steps that work on a scene's video. Each takes (job, progress) and returns a finding."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

from django.conf import settings
from django.db import transaction

import media_tools
from annotator.models import Keyframe, MediaJob, TelemetrySample, TelemetryTrack, Video
from annotator.processing.jobs import ProgressFn
from annotator.storage import delete_quietly, file_fields_replace, local_copy, store_path


def _video(job: MediaJob) -> Video:
    assert job.scene is not None
    return Video.objects.get(id=job.scene.video_id)


def probe_step(job: MediaJob, progress: ProgressFn) -> str:
    video = _video(job)
    with local_copy(video.file.name or "") as path:
        info = media_tools.probe_video(path, ffprobe_bin=settings.SKYMARK_FFPROBE)
    Video.objects.filter(id=video.id).update(
        duration_s=info.duration_s,
        fps=info.fps,
        frame_count=info.frame_count,
        width=info.width,
        height=info.height,
        codec=info.codec,
        pixel_format=info.pixel_format,
        container=info.container[:64],
        rotation=info.rotation,
        is_vfr=info.is_vfr,
        has_audio=info.has_audio,
        probe=info.as_dict(),
    )
    rate = "variable" if info.is_vfr else f"{info.fps:.3g}"
    rotated = f", rotated {info.rotation}°" if info.rotation else ""
    return f"{info.codec} {info.width}x{info.height}{rotated}, {rate} fps, {info.duration_s:.2f} s"


def keyframes_step(job: MediaJob, progress: ProgressFn) -> str:
    video = _video(job)
    if not video.duration_s:
        raise media_tools.MediaError(f"{video.original_name}: probe the video before extracting keyframes")
    stored: list[str] = []
    try:
        with local_copy(video.file.name or "") as path, tempfile.TemporaryDirectory(prefix="skymark-kf-") as tmp:
            frames = media_tools.keyframes(
                path,
                Path(tmp),
                fps=settings.SKYMARK_KEYFRAME_FPS,
                duration_s=video.duration_s,
                on_progress=lambda f: progress(0.8 * f),
                ffmpeg_bin=settings.SKYMARK_FFMPEG,
            )
            rows = []
            for n, frame in enumerate(frames):
                name = store_path(frame.path, f"keyframes/v{video.id}/{frame.index:06d}.jpg")
                stored.append(name)
                rows.append(Keyframe(video=video, index=frame.index, time_s=max(0.0, frame.time_s), image=name))
                progress(0.8 + 0.2 * (n + 1) / len(frames))
        with transaction.atomic():
            old = list(Keyframe.objects.filter(video=video).values_list("image", flat=True))
            Keyframe.objects.filter(video=video).delete()
            Keyframe.objects.bulk_create(rows)
            transaction.on_commit(lambda: delete_quietly(old))
    except Exception:
        delete_quietly(stored)
        raise
    return f"{len(rows)} keyframes at {settings.SKYMARK_KEYFRAME_FPS:g} fps"


def _probed(video: Video) -> media_tools.VideoInfo:
    """The probe job's findings as a VideoInfo (a probe from an older release lacks newer fields)."""
    names = {f.name for f in dataclasses.fields(media_tools.VideoInfo)}
    if not names <= set(video.probe):
        raise media_tools.MediaError(f"{video.original_name}: probe the video again (its probe data is outdated)")
    return media_tools.VideoInfo(**{k: v for k, v in video.probe.items() if k in names})


def filmstrip_step(job: MediaJob, progress: ProgressFn) -> str:
    """A sprite sheet of the keyframes with a WebVTT track (scrubbing previews) and a poster."""
    video = _video(job)
    frames = list(Keyframe.objects.filter(video=video).order_by("index"))
    if not frames or not video.duration_s:
        raise media_tools.MediaError(f"{video.original_name}: extract keyframes before building the filmstrip")
    stored: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="skymark-fs-") as tmp:
            out, local = Path(tmp), []
            for n, frame in enumerate(frames):
                target = out / f"k{frame.index:06d}.jpg"
                with frame.image.open("rb") as src:
                    target.write_bytes(src.read())
                local.append((target, frame.time_s))
                progress(0.5 * (n + 1) / len(frames))
            info = media_tools.build_filmstrip(
                local, duration_s=video.duration_s, sprite_path=out / "filmstrip.jpg", vtt_path=out / "filmstrip.vtt"
            )
            media_tools.make_poster(local[0][0], out / "poster.jpg")
            progress(0.8)
            for name in ("filmstrip.jpg", "filmstrip.vtt"):
                stored.append(store_path(out / name, f"filmstrips/v{video.id}/{name}"))
            stored.append(store_path(out / "poster.jpg", f"posters/v{video.id}.jpg"))
        file_fields_replace(
            model=Video,
            pk=video.id,
            changes={"filmstrip_sprite": stored[0], "filmstrip_vtt": stored[1], "poster": stored[2]},
            stored=stored,
        )
    except Exception:
        delete_quietly(stored)
        raise
    return f"{info.count} thumbnails ({info.columns}×{info.rows} sprite), poster"


def proxy_step(job: MediaJob, progress: ProgressFn) -> str:
    """A browser-safe H.264 copy when the original cannot play in a browser; else nothing to do."""
    video = _video(job)
    if not video.probe:
        raise media_tools.MediaError(f"{video.original_name}: probe the video before making a proxy")
    info = _probed(video)
    reason = media_tools.proxy_reason(info)
    if reason is None:
        if video.proxy:
            file_fields_replace(model=Video, pk=video.id, changes={"proxy": ""}, stored=[])
        Video.objects.filter(id=video.id).update(proxy_reason="")
        return f"not needed: {info.codec} {info.pixel_format} plays in browsers as is"
    stored: list[str] = []
    try:
        with local_copy(video.file.name or "") as path, tempfile.TemporaryDirectory(prefix="skymark-px-") as tmp:
            out = Path(tmp) / "proxy.mp4"
            media_tools.make_proxy(path, out, info=info, on_progress=lambda pct: progress(0.95 * pct / 100))
            stored.append(store_path(out, f"proxies/v{video.id}.mp4"))
        file_fields_replace(model=Video, pk=video.id, changes={"proxy": stored[0]}, stored=stored)
        Video.objects.filter(id=video.id).update(proxy_reason=reason[:200])
    except Exception:
        delete_quietly(stored)
        raise
    return f"proxy made: {reason}"


def telemetry_step(job: MediaJob, progress: ProgressFn) -> str:
    """The drone's track over video time: an uploaded CSV/SRT when there is one, else GoPro GPMF."""
    assert job.scene_id is not None
    scene_id: int = job.scene_id
    video = _video(job)
    track = TelemetryTrack.objects.filter(scene_id=scene_id).first()
    uploaded = track is not None and bool(track.original)
    if uploaded:
        assert track is not None
        with local_copy(track.original.name or "") as path:
            samples = media_tools.read_track(path, columns=track.columns)
        source = track.source
    else:
        with local_copy(video.file.name or "") as path:
            samples = media_tools.read_gpmf(path)
        source = TelemetryTrack.Source.GPMF
    progress(0.7)
    if not samples:
        TelemetryTrack.objects.filter(scene_id=scene_id, source=TelemetryTrack.Source.GPMF).delete()
        return "no telemetry: the video has no GPMF track and none was uploaded"
    with transaction.atomic():
        track, _ = TelemetryTrack.objects.update_or_create(
            scene_id=scene_id, defaults={"source": source, "sample_count": len(samples)}
        )
        track.samples.all().delete()
        TelemetrySample.objects.bulk_create(
            [
                TelemetrySample(
                    track=track,
                    time_s=s.time_s,
                    lat=s.lat,
                    lon=s.lon,
                    alt_m=s.alt_m,
                    height_m=s.height_m,
                    heading_deg=s.heading_deg,
                    speed_mps=s.speed_mps,
                )
                for s in samples
            ],
            batch_size=1000,
        )
    span = f"{samples[0].time_s:.1f}–{samples[-1].time_s:.1f} s"
    found = f"{len(samples)} {TelemetryTrack.Source(source).label} samples over {span}"
    if all(s.height_m is None for s in samples):
        # Said where the admin looks: without it the map gets no telemetry footprint.
        return f"{found}; no height above take-off, so no telemetry footprint (name its column at import)"
    return found
