"""The bad-video corpus (tests/conftest.py's bad_media) through every media_tools entry point that
reads a video. Each call ends in a MediaError that starts with the file's name, gives a reason a
person can act on, shows no server folder, and leaves nothing in the output folder."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from media_tools import MediaError, extract_frame, keyframes, make_proxy, probe_video
from tests.factories import tiny_video

# kind in bad_media -> what the reason must say, whichever function read the file
REASONS = {
    "empty": r"empty \(0 bytes\)",
    "truncated": r"truncated|incomplete",
    "text": r"not a (readable )?video",
    "audio_only": r"no video stream",
    "one_pixel": r"1x1 px, too small to annotate",
}


def _probe(path: Path, out: Path) -> object:
    return probe_video(path)


def _keyframes(path: Path, out: Path) -> object:
    return keyframes(path, out / "keyframes", fps=1.0)


def _extract_frame(path: Path, out: Path) -> object:
    return extract_frame(path, out / "poster.jpg", time_s=0.0)


def _make_proxy(path: Path, out: Path) -> None:
    # The file changed after it was probed (re-uploaded under the same name): the proxy step has the
    # old, good probe result and must still fail on what is there now.
    make_proxy(path, out / "proxy.mp4", info=probe_video(tiny_video()), on_progress=lambda p: None)


CALLS: dict[str, Callable[[Path, Path], object]] = {
    "probe_video": _probe,
    "keyframes": _keyframes,
    "extract_frame": _extract_frame,
    "make_proxy": _make_proxy,
}

CASES = [
    pytest.param(call, kind, id=f"{call}-{kind}")
    for call in CALLS
    for kind in REASONS
    # A 1x1 px video never reaches the proxy step: probing refuses it first, so there is no probe
    # result to make a proxy from.
    if not (call == "make_proxy" and kind == "one_pixel")
]


@pytest.mark.parametrize(("call", "kind"), CASES)
def test_bad_video_fails_with_name_and_reason_and_writes_nothing(
    bad_media: dict[str, Path], tmp_path: Path, call: str, kind: str
) -> None:
    # given a broken video, an empty output folder, and what lies beside the video now
    path = bad_media[kind]
    out = tmp_path / "out"
    out.mkdir()
    beside = sorted(p.name for p in path.parent.iterdir())

    # when it is read
    with pytest.raises(MediaError) as err:
        CALLS[call](path, out)

    # then the message is "<file name>: <reason>", with no server folder in it
    message = str(err.value)
    assert message.startswith(f"{path.name}: "), message
    reason = message.removeprefix(f"{path.name}: ")
    assert re.search(REASONS[kind], reason), message
    # and a file that is not a video is not called a cut-short one ("upload it again" would not help)
    if kind != "truncated":
        assert "truncated" not in reason, message
    assert str(path.parent) not in message and str(out) not in message, message
    # and nothing was written: not in the output folder (hidden partial files included), not beside it
    assert [p.relative_to(out) for p in out.rglob("*")] == []
    assert sorted(p.name for p in path.parent.iterdir()) == beside


@pytest.mark.parametrize("call", sorted(CALLS))
def test_missing_video_is_named(bad_media: dict[str, Path], tmp_path: Path, call: str) -> None:
    # given a path with no file behind it / when read / then "file not found", and nothing written
    path = bad_media["missing"]
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(MediaError) as err:
        CALLS[call](path, out)
    assert str(err.value) == f"{path.name}: file not found"
    assert list(out.iterdir()) == []
