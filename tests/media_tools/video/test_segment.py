"""media_tools.video.segment: a time interval of a video as its own MP4, copied when a keyframe
opens it, re-encoded otherwise, never left half-written."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from media_tools import MediaError
from media_tools.video import cut_segment, keyframe_times
from tests.media_tools.test_probe import H264, clip, pattern, probed
from tests.media_tools.test_proxy import mpeg4_avi


@lru_cache
def gop_clip() -> Path:
    """6 s at 10 fps, H.264 in MP4 with a keyframe every 10 frames: at 0, 1, 2, ... 5 s exactly."""
    return clip("gop10_96x64.mp4", *pattern(6), *H264, "-g", "10", "-keyint_min", "10", "-sc_threshold", "0")


def test_keyframe_times_lists_each_keyframe_from_the_first_frame() -> None:
    # given a clip encoded with a keyframe every second
    # when its keyframes are listed
    times = keyframe_times(gop_clip())
    # then they are the whole seconds, counted from its first frame
    assert times == pytest.approx([0, 1, 2, 3, 4, 5])


def test_a_segment_opened_by_a_keyframe_is_copied(tmp_path: Path) -> None:
    # given a browser-safe clip and an interval starting on a keyframe
    src = gop_clip()
    # when the interval is cut
    seg = cut_segment(src, tmp_path / "seg.mp4", info=probed(src), start_s=2.0, end_s=4.0)
    # then it is a stream copy of that interval
    assert (seg.method, seg.start_s, seg.end_s) == ("copy", 2.0, 4.0)
    out = probed(tmp_path / "seg.mp4")
    assert out.codec == "h264" and out.frame_count == 20
    assert out.duration_s == pytest.approx(2.0, abs=0.11)
    assert not list(tmp_path.glob(".*"))  # no partial file left beside it


def test_a_segment_between_keyframes_is_re_encoded_from_its_exact_start(tmp_path: Path) -> None:
    # given an interval starting between keyframes
    src = gop_clip()
    # when it is cut
    seg = cut_segment(src, tmp_path / "seg.mp4", info=probed(src), start_s=2.3, end_s=3.8)
    # then it is re-encoded, starting at 2.3 s: 15 frames, the first of them a keyframe
    assert seg.method == "reencode" and "no keyframe at 2.30 s" in seg.why
    out = probed(tmp_path / "seg.mp4")
    assert out.frame_count == 15 and out.pixel_format == "yuv420p"
    assert keyframe_times(tmp_path / "seg.mp4")[0] == 0


def test_a_source_browsers_cannot_play_is_re_encoded_to_h264(tmp_path: Path) -> None:
    # given MPEG-4 Part 2 in AVI
    src = mpeg4_avi()
    # when a segment is cut, even one on a keyframe
    seg = cut_segment(src, tmp_path / "seg.mp4", info=probed(src), start_s=0.0, end_s=1.0)
    # then it comes out as H.264 in MP4, and says why
    assert seg.method == "reencode" and "mpeg4" in seg.why
    assert probed(tmp_path / "seg.mp4").codec == "h264"


def test_the_end_is_clamped_to_the_video(tmp_path: Path) -> None:
    src = gop_clip()
    seg = cut_segment(src, tmp_path / "seg.mp4", info=probed(src), start_s=5.0, end_s=60.0)
    assert seg.end_s == pytest.approx(probed(src).duration_s)
    assert probed(tmp_path / "seg.mp4").frame_count == 10


@pytest.mark.parametrize(
    ("start", "end", "says"),
    [(3.0, 3.0, "empty"), (-1.0, 2.0, "before 0"), (9.0, 10.0, "after the video ends")],
)
def test_an_impossible_interval_is_refused_and_writes_nothing(
    tmp_path: Path, start: float, end: float, says: str
) -> None:
    src = gop_clip()
    with pytest.raises(MediaError, match=says):
        cut_segment(src, tmp_path / "seg.mp4", info=probed(src), start_s=start, end_s=end)
    assert list(tmp_path.iterdir()) == []


def test_a_broken_source_fails_with_its_name_and_leaves_nothing(tmp_path: Path) -> None:
    # given a file that stopped being a video after it was probed
    src = tmp_path / "clip.mp4"
    src.write_bytes(b"not a video any more")
    with pytest.raises(MediaError, match=r"^clip\.mp4: "):
        cut_segment(src, tmp_path / "seg.mp4", info=probed(gop_clip()), start_s=0.0, end_s=1.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.mp4"]
