"""media_tools.filmstrip: the scrubbing sprite with its WebVTT thumbnails track, and the poster."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from media_tools import MediaError, build_filmstrip, filmstrip, make_poster

VTT_TIME = re.compile(r"^\d{2}:\d{2}:\d{2}\.\d{3}$")


def _frame_image(i: int, size: tuple[int, int] = (320, 180)) -> Image.Image:
    """A picture that differs from its neighbours in colour and layout: a bar that moves with i."""
    img = Image.new("RGB", size, ((i * 41) % 256, (90 + i * 23) % 256, (200 - i * 7) % 256))
    draw = ImageDraw.Draw(img)
    x = (i * 13) % (size[0] - 40)
    draw.rectangle((x, 20, x + 40, size[1] - 20), fill=(255 - (i * 41) % 256, 20, 240))
    return img


def _times(count: int) -> list[float]:
    """Uneven keyframe times (0.0, 0.6, 1.0, 1.6, ...), as a real clip's nearest frames are."""
    return [round(i * 0.5 + (i % 2) * 0.1, 3) for i in range(count)]


def _frames(folder: Path, count: int) -> list[tuple[Path, float]]:
    folder.mkdir(parents=True, exist_ok=True)
    frames = []
    for i, t in enumerate(_times(count)):
        path = folder / f"frame_{i:06d}.jpg"
        _frame_image(i).save(path, quality=95)
        frames.append((path, t))
    return frames


def _cues(vtt: Path) -> list[tuple[str, str, str]]:
    """(start, end, target) of every cue."""
    blocks = [b for b in vtt.read_text(encoding="utf-8").split("\n\n") if "-->" in b]
    cues = []
    for block in blocks:
        timing, target = block.strip().splitlines()
        start, end = timing.split(" --> ")
        cues.append((start, end, target))
    return cues


def _seconds(stamp: str) -> float:
    h, m, s = stamp.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def _cell(sprite: Path, x: int, y: int, w: int, h: int) -> np.ndarray:
    with Image.open(sprite) as sheet:
        return np.asarray(sheet.convert("RGB").crop((x, y, x + w, y + h))).astype(np.int16)


def _thumb(path: Path, w: int, h: int) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGB").resize((w, h), Image.Resampling.LANCZOS)).astype(np.int16)


def test_sprite_has_one_cell_per_frame_in_rows_of_ten(tmp_path: Path) -> None:
    # given 23 keyframes of 320x180
    frames = _frames(tmp_path / "kf", 23)
    sprite, vtt = tmp_path / "strip.jpg", tmp_path / "strip.vtt"

    # when a filmstrip of 160 px wide cells is built, 10 to a row
    info = build_filmstrip(frames, duration_s=11.75, sprite_path=sprite, vtt_path=vtt, columns=10)

    # then it is 10 columns by 3 rows of 160x90 cells (aspect kept)
    assert (info.count, info.columns, info.rows, info.thumb_width, info.thumb_height) == (23, 10, 3, 160, 90)
    with Image.open(sprite) as sheet:
        assert (sheet.format, sheet.size) == ("JPEG", (10 * 160, 3 * 90))


def test_vtt_cues_cover_the_video_and_point_at_their_cells(tmp_path: Path) -> None:
    # given 23 keyframes at uneven times in an 11.75 s video
    frames = _frames(tmp_path / "kf", 23)
    times = _times(23)
    sprite, vtt = tmp_path / "strip.jpg", tmp_path / "strip.vtt"

    # when the filmstrip is built
    build_filmstrip(frames, duration_s=11.75, sprite_path=sprite, vtt_path=vtt, sprite_url="/media/v1/strip.jpg")

    # then the track is WebVTT with one cue per frame
    text = vtt.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "WEBVTT"
    cues = _cues(vtt)
    assert len(cues) == 23
    # and cue i covers [t_i, t_i+1), the last one up to the video's end, in HH:MM:SS.mmm
    for i, (start, end, _) in enumerate(cues):
        assert VTT_TIME.match(start) and VTT_TIME.match(end), (start, end)
        assert _seconds(start) == pytest.approx(times[i], abs=5e-4)
        expected_end = times[i + 1] if i + 1 < len(times) else 11.75
        assert _seconds(end) == pytest.approx(expected_end, abs=5e-4)
    assert cues[1][:2] == ("00:00:00.600", "00:00:01.000")
    assert cues[-1][:2] == ("00:00:11.000", "00:00:11.750")
    # and each cue points at its cell: cue 12 is row 1, column 2
    assert cues[12][2] == "/media/v1/strip.jpg#xywh=320,90,160,90"
    for i, (_, _, target) in enumerate(cues):
        assert target == f"/media/v1/strip.jpg#xywh={(i % 10) * 160},{(i // 10) * 90},160,90"


def test_each_cell_shows_its_frame(tmp_path: Path) -> None:
    # given 23 distinct keyframes
    frames = _frames(tmp_path / "kf", 23)
    sprite, vtt = tmp_path / "strip.jpg", tmp_path / "strip.vtt"

    # when the filmstrip is built
    build_filmstrip(frames, duration_s=11.75, sprite_path=sprite, vtt_path=vtt)

    # then the cell a cue points at looks like that cue's frame (JPEG noise only), not like the next one
    for i in (0, 9, 12, 22):
        x, y, w, h = (int(v) for v in _cues(vtt)[i][2].split("#xywh=")[1].split(","))
        cell = _cell(sprite, x, y, w, h)
        own = np.abs(cell - _thumb(frames[i][0], w, h)).mean()
        other = np.abs(cell - _thumb(frames[(i + 1) % 23][0], w, h)).mean()
        assert own < 4.0, (i, own)
        assert other > 5 * own, (i, own, other)


def test_frames_given_out_of_order_are_sorted_by_time(tmp_path: Path) -> None:
    # given the same 23 keyframes, shuffled
    frames = _frames(tmp_path / "kf", 23)
    shuffled = frames[:]
    random.Random(7).shuffle(shuffled)
    assert shuffled != frames
    sprite, vtt = tmp_path / "strip.jpg", tmp_path / "strip.vtt"

    # when the filmstrip is built
    build_filmstrip(shuffled, duration_s=11.75, sprite_path=sprite, vtt_path=vtt)

    # then cues run forward in time and cell i still shows the i-th frame in time
    starts = [_seconds(start) for start, _, _ in _cues(vtt)]
    assert starts == pytest.approx(_times(23), abs=5e-4)
    for i in (0, 5, 17):
        x, y = (i % 10) * 160, (i // 10) * 90
        assert np.abs(_cell(sprite, x, y, 160, 90) - _thumb(frames[i][0], 160, 90)).mean() < 4.0


def test_fewer_frames_than_columns_make_one_row(tmp_path: Path) -> None:
    # given 4 keyframes of a 4:3 picture
    folder = tmp_path / "kf"
    folder.mkdir()
    frames = []
    for i in range(4):
        _frame_image(i, (64, 48)).save(folder / f"f{i}.png")
        frames.append((folder / f"f{i}.png", float(i)))

    # when built with the default 10 columns
    info = build_filmstrip(frames, duration_s=4.0, sprite_path=tmp_path / "s.jpg", vtt_path=tmp_path / "s.vtt")

    # then one row of 4 cells of 160x120
    assert (info.columns, info.rows, info.thumb_height) == (4, 1, 120)
    with Image.open(tmp_path / "s.jpg") as sheet:
        assert sheet.size == (640, 120)


def test_vtt_times_past_an_hour(tmp_path: Path) -> None:
    # given two keyframes an hour into a long flight
    folder = tmp_path / "kf"
    folder.mkdir()
    _frame_image(0).save(folder / "a.jpg")
    _frame_image(1).save(folder / "b.jpg")
    frames = [(folder / "a.jpg", 3725.25), (folder / "b.jpg", 3726.5)]

    # when built
    build_filmstrip(frames, duration_s=3727.0, sprite_path=tmp_path / "s.jpg", vtt_path=tmp_path / "s.vtt")

    # then hours are written out
    assert [c[:2] for c in _cues(tmp_path / "s.vtt")] == [
        ("01:02:05.250", "01:02:06.500"),
        ("01:02:06.500", "01:02:07.000"),
    ]


def test_no_frames_is_refused(tmp_path: Path) -> None:
    # given no keyframes / when built / then it says so and writes nothing
    with pytest.raises(MediaError, match="no keyframes"):
        build_filmstrip([], duration_s=1.0, sprite_path=tmp_path / "s.jpg", vtt_path=tmp_path / "s.vtt")
    assert list(tmp_path.iterdir()) == []


def test_unreadable_frame_leaves_no_sprite_and_no_track(tmp_path: Path) -> None:
    # given 23 keyframes of which one, in the middle, is not a picture
    frames = _frames(tmp_path / "kf", 23)
    broken = frames[14][0]
    broken.write_text("not a picture")
    out = tmp_path / "out"
    out.mkdir()

    # when the filmstrip is built / then the error names the bad frame
    with pytest.raises(MediaError, match=r"^frame_000014\.jpg: not a readable frame"):
        build_filmstrip(frames, duration_s=11.75, sprite_path=out / "strip.jpg", vtt_path=out / "strip.vtt")

    # and neither the sprite, the track nor a partial file is left
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("size", "expected"),
    [((1920, 1080), (1280, 720)), ((3000, 2000), (1280, 853)), ((640, 480), (640, 480)), ((1280, 96), (1280, 96))],
)
def test_poster_width_is_capped_at_1280_keeping_aspect(
    tmp_path: Path, size: tuple[int, int], expected: tuple[int, int]
) -> None:
    # given a frame of the given size
    frame = tmp_path / "frame.png"
    _frame_image(3, size).save(frame)

    # when a poster is made
    returned = make_poster(frame, tmp_path / "poster.jpg")

    # then it is a JPEG no wider than 1280 px with the frame's aspect, and the size returned is its own
    with Image.open(tmp_path / "poster.jpg") as poster:
        assert (poster.format, poster.size) == ("JPEG", expected)
    assert returned == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.png", "poster.jpg"]


def test_poster_of_an_unreadable_frame_writes_nothing(tmp_path: Path) -> None:
    frame = tmp_path / "frame.jpg"
    frame.write_bytes(b"\xff\xd8 cut short")
    with pytest.raises(MediaError, match=r"^frame\.jpg: not a readable frame"):
        make_poster(frame, tmp_path / "poster.jpg")
    assert [p.name for p in tmp_path.iterdir()] == ["frame.jpg"]


def test_long_videos_get_a_wider_sheet_instead_of_one_past_the_jpeg_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a JPEG side limit of 100 px (65,500 in life) and 23 thumbnails of 20x11 px, asked in 2 columns
    # (12 rows, 132 px high)
    monkeypatch.setattr(filmstrip, "MAX_JPEG_SIDE", 100)
    frames = _frames(tmp_path / "kf", 23)

    # when built
    info = build_filmstrip(
        frames, duration_s=12.0, sprite_path=tmp_path / "s.jpg", vtt_path=tmp_path / "s.vtt", thumb_width=20, columns=2
    )

    # then only 9 rows would fit, so the sheet takes 3 columns and 8 rows, and the cues follow that layout
    assert (info.columns, info.rows, info.thumb_width, info.thumb_height) == (3, 8, 20, 11)
    with Image.open(tmp_path / "s.jpg") as sheet:
        assert sheet.size == (60, 88)
    assert _cues(tmp_path / "s.vtt")[4][2] == "filmstrip.jpg#xywh=20,11,20,11"


def test_too_many_thumbnails_for_one_sprite_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a 50 px limit: 4 rows of 20x11 thumbnails fit, so 23 would need 6 columns, 120 px wide
    monkeypatch.setattr(filmstrip, "MAX_JPEG_SIDE", 50)
    frames = _frames(tmp_path / "kf", 23)

    # when built / then it says what to do, and writes nothing
    with pytest.raises(MediaError, match=r"^s\.jpg: 23 thumbnails do not fit in one JPEG sprite; sample fewer"):
        build_filmstrip(
            frames, duration_s=12.0, sprite_path=tmp_path / "s.jpg", vtt_path=tmp_path / "s.vtt", thumb_width=20
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kf"]


def test_track_that_cannot_be_written_leaves_no_sprite_either(tmp_path: Path) -> None:
    # given frames, and a track path in a folder that does not exist
    frames = _frames(tmp_path / "kf", 3)
    out = tmp_path / "out"
    out.mkdir()

    # when built / then it fails, and the sprite (written first) is not left on its own
    with pytest.raises(OSError):
        build_filmstrip(frames, duration_s=2.0, sprite_path=out / "s.jpg", vtt_path=tmp_path / "gone" / "s.vtt")
    assert list(out.iterdir()) == []
