"""media_tools.frames: keyframes at a rate with true timestamps, single frames, broken inputs."""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from media_tools import Frame, MediaError, extract_frame, keyframes, probe_video
from tests.factories import tiny_video
from tests.media_tools.test_probe import H264, SOURCES, clip, pattern, probed, ts_clip


def _decoded_frame(video: Path, index: int) -> np.ndarray:
    cap = cv2.VideoCapture(str(video))
    try:
        cap.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, frame = cap.read()
    finally:
        cap.release()
    assert ok, f"OpenCV could not decode frame {index} of {video.name}"
    return frame[:, :, ::-1].astype(np.int16)  # BGR -> RGB


def _rgb(path: Path) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB")).astype(np.int16)


def _grid_count(duration_s: float, fps: float, rate: float) -> int:
    """How many grid times k/rate have a nearest frame: the last frame (shown for 1/fps up to the
    duration) owns the times up to half a frame interval past its start."""
    return math.ceil((duration_s - 0.5 / fps) * rate - 1e-9)


@lru_cache
def long_clip() -> Path:
    """16 s at 25 fps, 64x48: 400 frames, so one keyframe per frame logs far more than a pipe holds."""
    return clip("long_400f.mp4", *pattern(16, size="64x48", rate=25), *H264)


@lru_cache
def late_video_clip() -> Path:
    """2 s of video that starts 0.5 s after its 2.5 s of sound (an MP4 edit list delays the video)."""
    return clip(
        "late_video.mp4", "-itsoffset", "0.5", *pattern(), "-f", "lavfi", "-i", "sine=frequency=440:duration=2.5",
        "-fps_mode", "passthrough", *H264, "-c:a", "aac",
    )  # fmt: skip


RATE = 2.5  # a sampling rate that is not a divisor of any source rate below


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_keyframes_follow_the_grid_on_real_clips(testdata: Path, tmp_path: Path, name: str) -> None:
    # given a real clip with known rate and size
    video = testdata / "videos" / name
    _, fps, _, width, height, _, _ = SOURCES[name]
    info = probed(video)

    # when keyframes are taken 2.5 times a second
    frames = keyframes(video, tmp_path / "kf", fps=RATE)

    # then there is one per grid time the footage reaches, numbered in order
    assert len(frames) == _grid_count(info.duration_s, fps, RATE)
    assert [f.index for f in frames] == list(range(len(frames)))
    # and frame k is a real frame (a whole number of frame intervals from the first), the nearest one
    # to k / 2.5 s: within half a frame interval; the first is exactly 0
    assert frames[0].time_s == 0.0
    for k, frame in enumerate(frames):
        assert frame.time_s * fps == pytest.approx(round(frame.time_s * fps), abs=1e-3), (k, frame.time_s)
        assert abs(frame.time_s - k / RATE) <= 0.5 / fps + 1e-6, (k, frame.time_s)
    # and every file is a full-size JPEG in the output folder, with nothing else left there
    for frame in frames:
        assert frame.path.parent == tmp_path / "kf"
        with Image.open(frame.path) as img:
            assert (img.format, img.size) == ("JPEG", (width, height))
    assert sorted(p.name for p in (tmp_path / "kf").iterdir()) == [f.path.name for f in frames]


def test_keyframe_pixels_are_the_frame_at_that_time(testdata: Path, tmp_path: Path) -> None:
    # given the Saro clip (3 fps): keyframe k should be decoded frame 3k
    video = testdata / "videos" / "saro_roundabout_topdown_1080p_3fps.mp4"

    # when
    frames = keyframes(video, tmp_path, fps=1.0)

    # then keyframe 4 looks like decoded frame 12 (JPEG noise only) and not like frame 27
    kf = _rgb(frames[4].path)
    same = np.abs(kf - _decoded_frame(video, 12)).mean()
    other = np.abs(kf - _decoded_frame(video, 27)).mean()
    assert same < 3.0
    assert other > same * 2


def test_keyframes_at_2fps_on_generated_clip(tmp_path: Path) -> None:
    # given a 2 s clip at 10 fps / when sampled at 2 per second
    frames = keyframes(tiny_video(), tmp_path, fps=2.0)

    # then
    assert [f.time_s for f in frames] == pytest.approx([0.0, 0.5, 1.0, 1.5])


def test_keyframes_at_the_video_rate_keep_every_frame(tmp_path: Path) -> None:
    # given a 2 s clip at 10 fps / when sampled at 10 per second
    frames = keyframes(tiny_video(), tmp_path, fps=10.0)

    # then every frame is kept once, frame i at exactly i / 10 s
    assert [f.time_s for f in frames] == pytest.approx([i / 10 for i in range(20)], abs=1e-6)


def test_keyframes_count_from_the_stream_start_not_the_container_clock(tmp_path: Path) -> None:
    # given an MPEG-TS clip whose first frame is stamped about 1.4 s or later
    video = ts_clip()
    assert probe_video(video).start_time_s > 1.0

    # when every frame, and one a second, are taken
    every = keyframes(video, tmp_path / "all", fps=10.0)
    per_second = keyframes(video, tmp_path / "1fps", fps=1.0)

    # then times count from the first frame: 0.0, 0.1, ... 1.9 and 0.0, 1.0
    assert every[0].time_s == 0.0
    assert [f.time_s for f in every] == pytest.approx([i / 10 for i in range(20)], abs=1e-6)
    assert [f.time_s for f in per_second] == pytest.approx([0.0, 1.0], abs=1e-6)


def test_keyframes_count_from_the_video_stream_not_the_sound(tmp_path: Path) -> None:
    # given a clip whose first picture comes 0.5 s after its sound starts
    video = late_video_clip()
    assert probe_video(video).start_time_s == pytest.approx(0.5)

    # when every frame, and one a second, are taken
    every = keyframes(video, tmp_path / "all", fps=10.0)
    per_second = keyframes(video, tmp_path / "1fps", fps=1.0)

    # then times count from the first picture: 0.0, 0.1, ... 1.9 and 0.0, 1.0
    assert [f.time_s for f in every] == pytest.approx([i / 10 for i in range(20)], abs=1e-6)
    assert [f.time_s for f in per_second] == pytest.approx([0.0, 1.0], abs=1e-6)


def test_keyframes_of_a_long_run_do_not_stall(tmp_path: Path) -> None:
    # given 400 frames, each kept, so ffmpeg logs one line per frame (far more than a 64 KiB pipe)
    result: list[list[Frame]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            result.append(keyframes(long_clip(), tmp_path, fps=25.0))
        except BaseException as exc:  # reported below, in the test's own thread
            errors.append(exc)

    # when they are extracted (in a thread, so a stalled pipe fails the test instead of hanging it)
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(timeout=60)

    # then all 400 come back, with their times
    assert not thread.is_alive(), "keyframes stalled: ffmpeg's log was not read while it ran"
    assert not errors, errors
    frames = result[0]
    assert len(frames) == 400
    assert frames[-1].time_s == pytest.approx(399 / 25, abs=1e-6)


@pytest.mark.parametrize("give_duration", [True, False])
def test_keyframes_progress_rises_to_the_end(tmp_path: Path, give_duration: bool) -> None:
    # given a progress callback, with or without the duration (ffmpeg's header has it too)
    video = long_clip()
    seen: list[float] = []

    # when
    frames = keyframes(
        video,
        tmp_path,
        fps=2.0,
        duration_s=16.0 if give_duration else None,
        on_progress=seen.append,
    )

    # then progress is reported in 0..1 while decoding runs (not only at the end), never goes
    # backwards, passes 0.9 with the last frames, and ends at 1 once the frames are in place
    assert len(frames) == 32
    assert seen, "no progress was reported"
    assert all(0.0 <= p <= 1.0 for p in seen)
    assert seen == sorted(seen)
    assert min(seen) < 0.5
    assert seen[-2] >= 0.9
    assert seen[-1] == 1.0


def test_keyframes_refuses_nonpositive_rate(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="fps must be positive"):
        keyframes(tiny_video(), tmp_path, fps=0)


def test_extract_frame_writes_the_frame_at_time(testdata: Path, tmp_path: Path) -> None:
    # given the Saro clip / when the frame at 2.0 s is written as PNG
    video = testdata / "videos" / "saro_roundabout_topdown_1080p_3fps.mp4"
    out = extract_frame(video, tmp_path / "sub" / "frame.png", time_s=2.0)

    # then it is a full-size PNG showing decoded frame 6 (2.0 s x 3 fps)
    assert out == tmp_path / "sub" / "frame.png"
    with Image.open(out) as img:
        assert (img.format, img.size) == ("PNG", (1920, 1080))
    assert np.abs(_rgb(out) - _decoded_frame(video, 6)).mean() < 2.0
    # and only the frame is in its folder
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["frame.png"]


def test_extract_frame_past_the_end_raises(tmp_path: Path) -> None:
    # given a 2 s clip / when asked for the frame at 30 s / then nothing is written and it says so
    with pytest.raises(MediaError, match=r"^tiny_64x48_10fps_2s\.mp4: no frame at 30\.00 s"):
        extract_frame(tiny_video(), tmp_path / "late.jpg", time_s=30.0)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["empty", "truncated", "text", "audio_only", "missing", "one_pixel"])
def test_bad_media_leaves_the_output_folder_as_it_was(bad_media: dict[str, Path], tmp_path: Path, kind: str) -> None:
    # given a broken file and an output folder that already holds another video's frame
    path = bad_media[kind]
    out_dir = tmp_path / "kf"
    out_dir.mkdir()
    (out_dir / "keep.jpg").write_bytes(b"earlier")

    # when keyframes are asked for / then MediaError names the file, not its folder
    with pytest.raises(MediaError) as err:
        keyframes(path, out_dir, fps=1.0)
    assert str(err.value).startswith(f"{path.name}: ")
    assert str(path.parent) not in str(err.value)
    # and the folder holds what it held before, no frame and no hidden work folder
    assert [p.name for p in out_dir.iterdir()] == ["keep.jpg"]


@pytest.mark.parametrize("kind", ["empty", "truncated", "text", "audio_only", "missing"])
def test_bad_media_creates_no_output_folder(bad_media: dict[str, Path], tmp_path: Path, kind: str) -> None:
    # given a broken file and an output folder that does not exist yet
    out = tmp_path / "out"
    out_dir = out / "new" / "kf"

    # when keyframes or a single frame are asked for
    with pytest.raises(MediaError):
        keyframes(bad_media[kind], out_dir, fps=1.0)
    with pytest.raises(MediaError) as err:
        extract_frame(bad_media[kind], out / "one" / "frame.jpg", time_s=0.0)

    # then no frame file was left behind
    assert str(err.value).startswith(f"{bad_media[kind].name}: ")
    assert [p for p in out.rglob("*") if p.is_file()] == []


def test_missing_ffmpeg_is_reported(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="no-such-ffmpeg is not installed"):
        keyframes(tiny_video(), tmp_path, fps=1.0, ffmpeg_bin="no-such-ffmpeg")
