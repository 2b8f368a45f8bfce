"""media_tools.proxy: which videos a browser cannot play as they are, and the H.264 proxy made for
them (faststart, upright, constant rate, same frames and sound)."""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from media_tools import MediaError, make_proxy, probe_video, proxy_reason
from tests.media_tools.test_probe import H264, SOURCES, clip, h264_clip, pattern, probed, rotated_clip, vfr_clip

# ---- clips a browser cannot play -----------------------------------------------------------------


@lru_cache
def mpeg4_avi() -> Path:
    """MPEG-4 Part 2 in AVI, as old action cameras and OpenCV's VideoWriter write it."""
    return clip("mpeg4.avi", *pattern(), "-c:v", "mpeg4")


@lru_cache
def _encoders() -> str:
    return subprocess.run(["ffmpeg", "-hide_banner", "-encoders"], capture_output=True, text=True, check=True).stdout


def hevc_mp4() -> Path:
    """HEVC in MP4, as recent phones and drones record."""
    if " libx265 " not in _encoders():
        pytest.skip("this ffmpeg has no libx265 encoder, so no HEVC clip can be made")
    return clip("hevc.mp4", *pattern(), "-c:v", "libx265", "-pix_fmt", "yuv420p", "-x265-params", "log-level=error")


@lru_cache
def yuv422_mp4() -> Path:
    return clip("yuv422.mp4", *pattern(), "-c:v", "libx264", "-pix_fmt", "yuv422p")


@lru_cache
def yuv444_mp4() -> Path:
    return clip("yuv444.mp4", *pattern(), "-c:v", "libx264", "-pix_fmt", "yuv444p")


@lru_cache
def sound_mp4() -> Path:
    """2 s of test pattern with a 440 Hz tone, H.264 + AAC."""
    return clip(
        "sound.mp4", *pattern(), "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
        *H264, "-c:a", "aac", "-shortest",
    )  # fmt: skip


@lru_cache
def mpeg4_sound_avi() -> Path:
    """MPEG-4 Part 2 video with MP3 sound in AVI."""
    return clip(
        "mpeg4_sound.avi", *pattern(), "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
        "-c:v", "mpeg4", "-c:a", "libmp3lame", "-shortest",
    )  # fmt: skip


def _top_level_boxes(path: Path) -> list[str]:
    """The MP4's top-level box types in file order (ftyp, moov, mdat ...)."""
    data = path.read_bytes()
    boxes, at = [], 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at : at + 8])
        if size == 1:
            size = struct.unpack(">Q", data[at + 8 : at + 16])[0]
        elif size == 0:
            size = len(data) - at
        assert size >= 8, f"broken box at {at} in {path.name}"
        boxes.append(kind.decode("latin-1"))
        at += size
    return boxes


def _audio_codec(path: Path) -> str:
    return subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
         str(path)],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


def _first_frame(path: Path) -> np.ndarray:
    cap = cv2.VideoCapture(str(path))
    try:
        ok, frame = cap.read()
    finally:
        cap.release()
    assert ok, f"OpenCV could not decode {path.name}"
    return frame.astype(np.int16)


# ---- proxy_reason ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_real_clips_need_no_proxy(testdata: Path, name: str) -> None:
    # given a real H.264 4:2:0 MP4 (the GoPro's is full-range yuvj420p) / when judged
    info = probed(testdata / "videos" / name)

    # then it plays in browsers as it is
    assert info.pixel_format in ("yuv420p", "yuvj420p")
    assert proxy_reason(info) is None


def test_plain_h264_mp4_needs_no_proxy() -> None:
    assert proxy_reason(probe_video(h264_clip())) is None


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (mpeg4_avi, "mpeg4 (Part 2) video does not play in all browsers"),
        (hevc_mp4, "hevc (H.265) video does not play in all browsers"),
        (yuv422_mp4, "pixel format yuv422p does not play in all browsers"),
        (yuv444_mp4, "pixel format yuv444p does not play in all browsers"),
        (rotated_clip, "° must be applied to the pixels"),
        (vfr_clip, "variable frame rate"),
    ],
)
def test_proxy_reason_says_what_a_browser_cannot_play(make: Callable[[], Path], reason: str) -> None:
    # given a clip a browser cannot play (or cannot step through frame by frame) / when judged
    info = probe_video(make())

    # then the reason names the problem
    assert reason in (proxy_reason(info) or "")


def test_rotation_reason_names_the_angle() -> None:
    info = probe_video(rotated_clip())
    assert proxy_reason(info) == f"rotation {info.rotation}° must be applied to the pixels"


# ---- make_proxy --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make", [mpeg4_avi, hevc_mp4, yuv422_mp4, yuv444_mp4, rotated_clip, sound_mp4, mpeg4_sound_avi]
)
def test_proxy_is_browser_safe_and_keeps_every_frame(tmp_path: Path, make: Callable[[], Path]) -> None:
    # given a clip and what probing found
    src = make()
    info = probe_video(src)
    seen: list[int] = []

    # when a proxy is made
    dst = tmp_path / "proxy.mp4"
    make_proxy(src, dst, info=info, on_progress=seen.append)

    # then it is H.264 4:2:0 in MP4 with the index (moov) before the media (mdat) ...
    out = probe_video(dst)
    assert (out.codec, out.pixel_format) == ("h264", "yuv420p")
    boxes = _top_level_boxes(dst)
    assert boxes.index("moov") < boxes.index("mdat"), boxes
    # ... upright, at the size a viewer saw, so browsers need no hint to show it right
    assert out.rotation == 0
    assert (out.width, out.height) == (info.display_width, info.display_height)
    # ... with the same frames over the same time, and the sound when there was sound
    assert out.frame_count == info.frame_count
    assert out.duration_s == pytest.approx(info.duration_s, abs=1 / info.fps)
    assert out.is_vfr is False
    assert out.has_audio is info.has_audio
    if info.has_audio:
        assert _audio_codec(dst) == "aac"
    # ... and it needs no proxy of its own
    assert proxy_reason(out) is None
    # and progress stays in 0..100, only rises, and ends at 100
    assert seen and all(0 <= p <= 100 for p in seen)
    assert seen == sorted(seen)
    assert seen[-1] == 100
    # and only the proxy is left in the folder
    assert [p.name for p in tmp_path.iterdir()] == ["proxy.mp4"]


def test_proxy_of_a_rotated_clip_turns_the_pixels(tmp_path: Path) -> None:
    # given a clip whose display matrix turns it a quarter, and the same stream without the matrix
    info = probe_video(rotated_clip())
    upright = _first_frame(h264_clip())  # 96 wide, 64 high, as stored

    # when a proxy is made
    make_proxy(rotated_clip(), tmp_path / "proxy.mp4", info=info)

    # then its first frame is the stored frame turned clockwise by the reported rotation, not the other way
    proxy = _first_frame(tmp_path / "proxy.mp4")
    assert proxy.shape == (96, 64, 3)
    turned = np.rot90(upright, k=-info.rotation // 90)
    wrong_way = np.rot90(upright, k=info.rotation // 90)
    right = np.abs(proxy - turned).mean()
    assert right < 12
    assert np.abs(proxy - wrong_way).mean() > 3 * right


def test_proxy_of_variable_frame_rate_is_constant_rate(tmp_path: Path) -> None:
    # given 10 frames at 10 fps, then 5 at 5 fps
    info = probe_video(vfr_clip())
    assert info.is_vfr

    # when a proxy is made
    make_proxy(vfr_clip(), tmp_path / "proxy.mp4", info=info)

    # then its frames are evenly spaced at the average rate, so frame i is at i / fps
    out = probe_video(tmp_path / "proxy.mp4")
    assert out.is_vfr is False
    assert out.fps == pytest.approx(info.fps, rel=1e-3)
    assert proxy_reason(out) is None


def test_proxy_is_no_taller_than_max_height(tmp_path: Path) -> None:
    # given a 96x64 clip / when a proxy of at most 32 px high is made
    make_proxy(yuv444_mp4(), tmp_path / "small.mp4", info=probe_video(yuv444_mp4()), max_height=32)

    # then it keeps the aspect ratio at 32 px high
    out = probe_video(tmp_path / "small.mp4")
    assert (out.width, out.height) == (48, 32)


def test_failed_proxy_names_the_file_and_leaves_nothing(tmp_path: Path) -> None:
    # given an AVI whose upload stopped after 3 kB, probed while it was still whole
    info = probe_video(mpeg4_avi())
    broken = tmp_path / "cut.avi"
    broken.write_bytes(mpeg4_avi().read_bytes()[:3000])
    seen: list[int] = []

    # when a proxy is made / then the error names the file and says the copy failed
    with pytest.raises(MediaError) as err:
        make_proxy(broken, tmp_path / "proxy.mp4", info=info, on_progress=seen.append)
    message = str(err.value)
    assert message.startswith("cut.avi: the browser-safe copy failed")
    assert str(tmp_path) not in message
    # and neither the proxy nor a partial file is left, and progress never claimed completion
    assert [p.name for p in tmp_path.iterdir()] == ["cut.avi"]
    assert 100 not in seen


def test_missing_ffmpeg_is_reported(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="no-such-ffmpeg is not installed"):
        make_proxy(h264_clip(), tmp_path / "p.mp4", info=probe_video(h264_clip()), ffmpeg_bin="no-such-ffmpeg")
    assert list(tmp_path.iterdir()) == []
