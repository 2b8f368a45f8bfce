"""media_tools.telemetry.gpmf: the GoPro Karma's GPMF track against the positions decoded
independently (testdata SOURCES.md), and payloads built here."""

from __future__ import annotations

import csv
import itertools
import struct
from pathlib import Path

import pytest

from media_tools import MediaError, probe_video, read_gpmf
from media_tools.telemetry import gpmf
from tests.factories import tiny_video

KARMA = "gopro_karma_drone_coast.mp4"
KARMA_POSITIONS = "gopro_karma_drone_coast_position.csv"


# ---- GoPro GPMF ----------------------------------------------------------------------------------


def test_gpmf_positions_match_the_independently_decoded_csv(testdata: Path) -> None:
    # given the Karma flight and its 47 "Position" samples decoded by another parser
    video = testdata / "videos" / KARMA
    with (testdata / "videos" / KARMA_POSITIONS).open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 47

    # when the GPMF track is read
    samples = read_gpmf(video)

    # then there is one sample per decoded row, in the same order, with the same values
    assert len(samples) == 47
    for got, want in zip(samples, rows, strict=True):
        assert got.lat == pytest.approx(float(want["latitude"]), abs=1e-7)
        assert got.lon == pytest.approx(float(want["longitude"]), abs=1e-7)
        assert got.alt_m == pytest.approx(float(want["alt_msl_m"]), abs=1e-3)
        # the Karma's "Position" also has the height above take-off: the one a footprint needs
        assert got.height_m == pytest.approx(float(want["rel_alt_m"]), abs=1e-3)
        assert got.heading_deg == pytest.approx(float(want["heading_deg"]), abs=0.01)
        ground_speed = (float(want["vx_m_s"]) ** 2 + float(want["vy_m_s"]) ** 2) ** 0.5
        assert got.speed_mps == pytest.approx(ground_speed, abs=0.01)


def test_gpmf_times_run_forward_inside_the_video(testdata: Path) -> None:
    # given the Karma flight (12.08 s) / when its track is read
    video = testdata / "videos" / KARMA
    times = [s.time_s for s in read_gpmf(video)]

    # then times are in video seconds: from 0, strictly increasing, never past the end
    duration = probe_video(video).duration_s
    assert times[0] == 0.0
    assert all(a < b for a, b in itertools.pairwise(times))
    assert min(times) >= 0.0 and max(times) <= duration
    # and they are spaced as the drone sampled them (about 4 Hz), not bunched per packet
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) > 0.15 and max(gaps) < 0.35


@pytest.mark.parametrize("name", ["intel_car_detection_topdown.mp4", None])
def test_video_without_gpmf_has_no_track(testdata: Path, name: str | None) -> None:
    # given a video with no GoPro metadata track (one with sound, one without)
    video = testdata / "videos" / name if name else tiny_video()

    # when / then
    assert read_gpmf(video) == []


def test_gpmf_of_a_file_that_is_not_a_video(tmp_path: Path) -> None:
    notes = tmp_path / "notes.mp4"
    notes.write_text("not a video")
    with pytest.raises(MediaError, match=r"^notes\.mp4: "):
        read_gpmf(notes)


# ---- GPMF payloads built here: the camera's own GPS5 stream ---------------------------------------


def _klv(key: str, kind: str, size: int, body: bytes) -> bytes:
    """One GPMF item: key, type, struct size, repeat, then the body padded to 32 bits."""
    repeat = len(body) // size if size else 0
    return key.encode() + struct.pack(">cBH", kind.encode(), size, repeat) + body + b"\0" * (-len(body) % 4)


def _gps5_payload(rows: list[tuple[int, int, int, int, int]]) -> bytes:
    scal = struct.pack(">5i", 10_000_000, 10_000_000, 1000, 1000, 100)
    gps5 = b"".join(struct.pack(">5i", *r) for r in rows)
    stream = _klv("STNM", "c", 1, b"GPS (Lat., Long., Alt., 2D speed, 3D speed)") + _klv("SCAL", "l", 4, scal)
    strm = _klv("STRM", "\0", 1, stream + _klv("GPS5", "l", 20, gps5))
    return _klv("DEVC", "\0", 1, _klv("DVNM", "c", 1, b"Camera") + strm)


def test_gps5_stream_is_scaled_per_field_and_has_no_heading() -> None:
    # given a HERO5-style payload: two GPS5 samples and a SCAL with one divisor per field
    payload = _gps5_payload([(574844120, 120092010, 95500, 3250, 3300), (574844130, 120092020, 95600, 3260, 3310)])

    # when parsed / then each row is (lat, lon, alt, height, heading, 2D speed), divided by its own
    # scale; GPS5 has an altitude above sea level but no height above ground
    assert gpmf._samples_in(payload) == [
        pytest.approx((57.484412, 12.009201, 95.5, None, None, 3.25)),
        pytest.approx((57.484413, 12.009202, 95.6, None, None, 3.26)),
    ]


def test_cut_gpmf_payload_is_refused() -> None:
    # given a payload whose last item claims more bytes than there are
    payload = _gps5_payload([(574844120, 120092010, 95500, 3250, 3300)])[:-12]

    # when parsed / then it says what is cut short (read_gpmf adds the file name and the time)
    with pytest.raises(ValueError, match="cut short"):
        gpmf._samples_in(payload)
