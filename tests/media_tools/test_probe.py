"""media_tools.probe against the real clips in testdata (values from its SOURCES.md), small clips
generated here for what the real ones do not show (rotation, variable frame rate, MKV and MPEG-TS
containers), and a corpus of broken files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from media_tools import MediaError, VideoInfo, probe_video
from tests.factories import _CACHE, TINY, tiny_video

# name: (duration_s, fps, frame_count, width, height, codec, has_audio) as SOURCES.md states them
SOURCES = {
    "saro_roundabout_topdown_1080p_3fps.mp4": (10.0, 3.0, 30, 1920, 1080, "h264", False),
    "kraklanda_highway_topdown_1080p_3fps.mp4": (3.0, 3.0, 9, 1920, 1080, "h264", False),
    "gopro_karma_drone_coast.mp4": (12.08, 30000 / 1001, 362, 854, 480, "h264", True),
    "intel_car_detection_topdown.mp4": (30.2, 12.5, 377, 768, 432, "h264", True),
    "opencv_vtest_oblique_pedestrians.mp4": (79.5, 10.0, 795, 768, 576, "h264", False),
}
# The GoPro writes full-range 4:2:0 ("j"); the others were encoded with -pix_fmt yuv420p.
PIXEL_FORMATS = dict.fromkeys(SOURCES, "yuv420p") | {"gopro_karma_drone_coast.mp4": "yuvj420p"}


@lru_cache
def probed(path: Path) -> VideoInfo:
    """probe_video once per file and test run, for tests about something else (VideoInfo is frozen)."""
    return probe_video(path)


# ---- generated clips ---------------------------------------------------------------------------

_MUXERS = {".mp4": "mp4", ".mkv": "matroska", ".ts": "mpegts", ".avi": "avi"}


def clip(name: str, *args: str) -> Path:
    """Run ffmpeg once per recipe and keep the result between runs, as tests.factories does. The file
    name carries a hash of the arguments, so a changed recipe never reuses an old file."""
    digest = hashlib.sha256("\0".join(args).encode()).hexdigest()[:10]
    out = _CACHE / f"{Path(name).stem}-{digest}{Path(name).suffix}"
    if out.is_file() and out.stat().st_size > 0:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{os.getpid()}.{out.name}")
    subprocess.run(
        ["ffmpeg", "-v", "error", "-nostdin", "-y", *args, "-f", _MUXERS[out.suffix], str(partial)],
        check=True,
        capture_output=True,
    )
    os.replace(partial, out)
    return out


def pattern(seconds: float = 2, size: str = "96x64", rate: float | str = 10) -> list[str]:
    """ffmpeg input arguments for the colour-bar test pattern (every corner looks different)."""
    return ["-f", "lavfi", "-i", f"testsrc=size={size}:rate={rate}:duration={seconds}"]


H264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p"]


@lru_cache
def h264_clip() -> Path:
    """2 s, 10 fps, 96x64 H.264 in MP4: 20 frames, upright, constant rate."""
    return clip("h264_96x64.mp4", *pattern(), *H264)


@lru_cache
def rotated_clip() -> Path:
    """h264_clip remuxed with a display matrix: stored 96x64, shown turned by a quarter."""
    return clip("rotated_96x64.mp4", "-i", str(h264_clip()), "-c", "copy", "-metadata:s:v:0", "rotate=90")


@lru_cache
def vfr_clip() -> Path:
    """1 s at 10 fps, then 1 s at 5 fps, kept at their own times: 15 frames, no single rate."""
    return clip(
        "vfr_10then5.mp4", *pattern(1, rate=10), *pattern(1, rate=5),
        "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]", "-fps_mode", "vfr", *H264,
    )  # fmt: skip


@lru_cache
def mkv_clip(rate: str = "10") -> Path:
    """2 s of H.264 in Matroska, which has no per-stream frame count (nb_frames)."""
    return clip(f"mkv_{rate.replace('/', '_')}.mkv", *pattern(rate=rate), *H264)


@lru_cache
def ts_clip() -> Path:
    """2 s, 10 fps H.264 in MPEG-TS: the muxer starts its clock at about 1.4 s, not 0."""
    return clip("offset.ts", *pattern(), *H264)


def ffprobe_stream(path: Path) -> dict:
    """The first video stream as ffprobe reports it, to show what a clip does (not) declare."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out)["streams"][0])


# ---- real clips --------------------------------------------------------------------------------


def test_every_testdata_video_is_listed_here(testdata: Path) -> None:
    # given the folder of real clips / then each one has expected values below (none is skipped)
    assert sorted(p.name for p in (testdata / "videos").glob("*.mp4")) == sorted(SOURCES)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_probe_matches_sources(testdata: Path, name: str) -> None:
    # given a real clip: upright, constant rate, in an MP4 container
    duration, fps, frames, width, height, codec, has_audio = SOURCES[name]

    # when it is probed
    info = probe_video(testdata / "videos" / name)

    # then every value agrees with SOURCES.md (which rounds durations to 0.1 or 0.01 s)
    assert info.duration_s == pytest.approx(duration, abs=0.05)
    assert info.fps == pytest.approx(fps, rel=1e-6)
    assert info.frame_count == frames
    assert (info.width, info.height) == (width, height)
    assert info.codec == codec
    assert info.pixel_format == PIXEL_FORMATS[name]
    assert info.has_audio is has_audio
    assert info.start_time_s == 0.0
    # and it needs no turning, its frames are evenly spaced, and it is shown at its stored size
    assert info.rotation == 0
    assert info.is_vfr is False
    assert "mp4" in info.container.split(",")
    assert (info.display_width, info.display_height) == (width, height)
    assert info.as_dict()["frame_count"] == frames


def test_probe_of_generated_clip() -> None:
    # given a 2 s, 10 fps, 64x48 test pattern made by ffmpeg
    info = probe_video(tiny_video())

    # then
    assert (info.duration_s, info.fps, info.frame_count, info.width, info.height) == (
        TINY["duration_s"],
        TINY["fps"],
        TINY["frame_count"],
        TINY["width"],
        TINY["height"],
    )
    assert info.has_audio is False
    assert info.pixel_format == "yuv420p"
    assert (info.rotation, info.is_vfr, info.display_width, info.display_height) == (0, False, 64, 48)


# ---- generated clips ---------------------------------------------------------------------------


def test_rotation_from_the_display_matrix_swaps_the_display_size() -> None:
    # given a 96x64 clip whose display matrix turns it by a quarter (ffprobe: rotation 90,
    # counter-clockwise; media_tools reports clockwise, so 270)
    path = rotated_clip()
    side = ffprobe_stream(path).get("side_data_list", [])
    assert [round(abs(float(s["rotation"]))) for s in side if "rotation" in s] == [90]

    # when it is probed
    info = probe_video(path)

    # then the stored size is unchanged, the rotation is a quarter turn and the display size is swapped
    assert info.rotation in (90, 270)
    assert (info.width, info.height) == (96, 64)
    assert (info.display_width, info.display_height) == (64, 96)
    assert (info.frame_count, info.is_vfr) == (20, False)


def test_upright_copy_of_the_same_stream_has_no_rotation() -> None:
    # given the same H.264 stream without a display matrix / when probed
    info = probe_video(h264_clip())

    # then
    assert (info.rotation, info.display_width, info.display_height) == (0, 96, 64)


def test_variable_frame_rate_is_detected() -> None:
    # given 10 frames 0.1 s apart followed by 5 frames 0.2 s apart
    path = vfr_clip()

    # when probed
    info = probe_video(path)

    # then the clip is flagged, and every frame is still counted
    assert info.is_vfr is True
    assert info.frame_count == 15


@pytest.mark.parametrize("rate", ["10", "30000/1001"])
def test_mkv_without_nb_frames_gets_an_exact_frame_count(rate: str) -> None:
    # given a 2 s Matroska clip; Matroska declares no frame count and rounds times to 1 ms, so at
    # 29.97 fps the frame gaps alternate 33/34 ms
    path = mkv_clip(rate)
    assert ffprobe_stream(path).get("nb_frames") in (None, "N/A")

    # when probed
    info = probe_video(path)

    # then the frames are counted one by one, and millisecond rounding is not variable frame rate
    expected = {"10": 20, "30000/1001": 60}[rate]
    assert info.frame_count == expected
    assert info.container == "matroska,webm"
    assert info.is_vfr is False


def test_mpegts_frame_count_and_start_time() -> None:
    # given a 2 s, 10 fps MPEG-TS clip, whose packets carry side data and whose clock starts late
    # when probed
    info = probe_video(ts_clip())

    # then the frames are counted once each and the late start is reported as it is
    assert info.frame_count == 20
    assert info.container == "mpegts"
    assert info.start_time_s > 1.0
    assert info.duration_s == pytest.approx(2.0, abs=0.01)
    assert info.is_vfr is False


# ---- broken files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("empty", "the file is empty (0 bytes)"),
        ("truncated", "truncated"),
        ("text", "not a "),
        ("audio_only", "no video stream found"),
        ("missing", "file not found"),
        ("one_pixel", "the picture is 1x1 px, too small to annotate"),
    ],
)
def test_bad_media_raises_with_file_name(bad_media: dict[str, Path], kind: str, reason: str) -> None:
    # given a broken file
    path = bad_media[kind]

    # when probed / then the error names the file and says why
    with pytest.raises(MediaError) as err:
        probe_video(path)
    message = str(err.value)
    assert message.startswith(f"{path.name}: ")
    assert reason in message
    # the server's folder layout is not part of a message people see
    assert str(path.parent) not in message


def test_mp4_cut_short_after_its_index_is_truncated(tmp_path: Path) -> None:
    # given a faststart MP4 (index first) of which only the first 60% arrived
    whole = clip("faststart.mp4", *pattern(), *H264, "-movflags", "+faststart")
    cut = tmp_path / "upload.mp4"
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])

    # when probed / then it is refused as truncated rather than read as a shorter video
    with pytest.raises(MediaError, match=r"^upload\.mp4: .*truncated"):
        probe_video(cut)


def test_image_header_is_not_a_video(bad_media: dict[str, Path]) -> None:
    # given a PNG (a header claiming 60000x60000 px) named as itself
    with pytest.raises(MediaError) as err:
        probe_video(bad_media["huge_image"])
    assert str(err.value).startswith("huge.png: ")


def test_missing_ffprobe_is_reported(tmp_path: Path) -> None:
    # given a probe binary that does not exist
    with pytest.raises(MediaError, match="no-such-ffprobe is not installed"):
        probe_video(tiny_video(), ffprobe_bin="no-such-ffprobe")
