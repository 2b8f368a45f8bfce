"""media_tools.telemetry: the GoPro Karma's GPMF track against the positions decoded independently
(testdata SOURCES.md), and uploaded CSV and DJI SRT tracks with the mistakes people make in them."""

from __future__ import annotations

import csv
import itertools
import struct
from pathlib import Path

import pytest

from media_tools import MediaError, probe_video, read_csv_track, read_gpmf, read_srt_track, read_track, telemetry
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


# ---- CSV tracks ----------------------------------------------------------------------------------


def _write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize(
    "header",
    [
        "t,Latitude,Longitude",
        "time_s,lat,lon",
        "Time,LAT,Lng",
        "seconds, latitude , long",
        "video_time_s,Lat,LONGITUDE",
    ],
)
def test_csv_header_spellings(tmp_path: Path, header: str) -> None:
    # given a track whose columns are named one of the accepted ways, rows out of time order
    path = _write(tmp_path, "track.csv", f"{header}\n1.5,57.4845,12.0093\n0.5,57.4844,12.0092\n")

    # when read
    samples = read_csv_track(path)

    # then the samples are in time order, with no optional values
    assert [(s.time_s, s.lat, s.lon) for s in samples] == [(0.5, 57.4844, 12.0092), (1.5, 57.4845, 12.0093)]
    assert {(s.alt_m, s.heading_deg, s.speed_mps) for s in samples} == {(None, None, None)}


def test_the_brighton_frames_log_reads_as_a_track(testdata: Path) -> None:
    # given the per-frame log of the Brighton Beach clip (one DJI still a second), as published
    samples = read_csv_track(testdata / "brighton_beach" / "frames.csv")
    with (testdata / "brighton_beach" / "frames.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    # then every frame is a sample at its clip time, with the flight's yaw as the heading; the
    # altitude above take-off is not mistaken for an altitude above sea level
    assert len(samples) == len(rows) and samples[0].time_s == 0.0
    assert (samples[1].lat, samples[1].lon, samples[1].heading_deg) == (
        float(rows[1]["lat"]), float(rows[1]["lon"]), float(rows[1]["flight_yaw_deg"]))  # fmt: skip
    assert {s.alt_m for s in samples} == {None}


def test_csv_with_byte_order_mark_and_optional_columns(tmp_path: Path) -> None:
    # given an Excel export: a BOM before the header, CRLF line ends, altitude, yaw and speed columns,
    # and one row without an altitude
    text = (
        "\ufeffT,Latitude,Longitude,Altitude,Yaw,Speed\r\n"
        "0,57.4844,12.0092,80.5,145,3.2\r\n1,57.4845,12.0093,,146,3.4\r\n"
    )
    path = _write(tmp_path, "export.csv", text)

    # when read
    samples = read_csv_track(path)

    # then the BOM is not part of the first column's name and the optional fields are filled
    assert [(s.time_s, s.lat, s.lon, s.alt_m, s.heading_deg, s.speed_mps) for s in samples] == [
        (0.0, 57.4844, 12.0092, 80.5, 145.0, 3.2),
        (1.0, 57.4845, 12.0093, None, 146.0, 3.4),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("time_s,lat,lon\n0,57.4,12\n1,57.4,twelve\n", "flight.csv: line 3: lon 'twelve' is not a number"),
        ("t,Latitude,Longitude\n0,,12\n", "flight.csv: line 2: Latitude is empty"),
        ("time_s,lat,lon\n,57.4,12\n", "flight.csv: line 2: time_s is empty"),
        ("time_s,lat,lon,alt\n0,57.4,12,high\n", "flight.csv: line 2: alt 'high' is not a number"),
    ],
)
def test_bad_csv_value_names_the_line_and_column(tmp_path: Path, body: str, expected: str) -> None:
    # given a track with one bad value / when read / then the message names the line and the column
    with pytest.raises(MediaError) as err:
        read_csv_track(_write(tmp_path, "flight.csv", body))
    assert str(err.value) == expected


@pytest.mark.parametrize(
    ("row", "value"),
    [("0,95,12", "95.0"), ("0,57.4,200", "200.0"), ("-1,57.4,12", "-1.0")],
)
def test_csv_value_out_of_range_names_the_line_and_value(tmp_path: Path, row: str, value: str) -> None:
    # given a latitude past the pole, a longitude past 180 or a time before the video
    path = _write(tmp_path, "flight.csv", f"time_s,lat,lon\n0,57.4,12\n{row}\n")

    # when read / then the message names the file, line 3 and the value
    with pytest.raises(MediaError) as err:
        read_csv_track(path)
    assert str(err.value).startswith("flight.csv: line 3: ")
    assert value in str(err.value)


def test_csv_without_a_required_column_lists_the_header(tmp_path: Path) -> None:
    # given a track whose lat/lon columns have names no one could guess
    path = _write(tmp_path, "flight.csv", "seconds,y,x,alt\n0,57.4,12,80\n")

    # when read / then the message says what is missing and what the header has
    with pytest.raises(MediaError) as err:
        read_csv_track(path)
    assert str(err.value) == "flight.csv: no column for lat, lon (have: seconds, y, x, alt)"


def test_csv_with_only_a_header_or_not_text(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match=r"^empty\.csv: the track has no samples$"):
        read_csv_track(_write(tmp_path, "empty.csv", "time_s,lat,lon\n"))
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"time_s,lat,lon\n\xff\xfe\x00\x81,1,2\n")
    with pytest.raises(MediaError, match=r"^binary\.csv: not a readable CSV"):
        read_csv_track(binary)


# ---- DJI SRT tracks ------------------------------------------------------------------------------

MODERN_CUE = (
    "{n}\n{start} --> {end}\n"
    '<font size="28">FrameCnt: {n}, DiffTime: 33ms\n2024-05-01 10:00:00.{ms:03d}\n'
    "[iso: 100] [shutter: 1/1000.0] [fnum: 2.8] [ev: 0] [ct: 5500] [color_md: default] [focal_len: 24.00] "
    "[latitude: {lat}] [longitude: {lon}] [rel_alt: {rel} abs_alt: {abs}] </font>\n"
)


def test_dji_srt_modern_form(tmp_path: Path) -> None:
    # given two cues of a recent DJI drone (Mini 3/4, Air 3)
    text = MODERN_CUE.format(
        n=1, start="00:00:00,000", end="00:00:00,033", ms=0, lat="57.48", lon="12.00", rel="80.1", abs="120.3"
    ) + "\n" + MODERN_CUE.format(
        n=2, start="00:01:02,533", end="00:01:02,566", ms=533, lat="57.4801", lon="12.0002", rel="80.2", abs="120.4"
    )  # fmt: skip
    path = _write(tmp_path, "DJI_0001.SRT", text)

    # when read
    samples = read_srt_track(path)

    # then each cue gives a sample at its start time with the absolute altitude
    assert [(s.time_s, s.lat, s.lon, s.alt_m) for s in samples] == [
        (0.0, 57.48, 12.0, 120.3),
        (62.533, 57.4801, 12.0002, 120.4),
    ]


def test_dji_srt_older_gps_form_is_lon_lat_alt(tmp_path: Path) -> None:
    # given cues of an older DJI drone (Phantom 4, Mavic Pro): GPS(lon, lat, alt), and a HOME(...) line
    text = (
        "1\r\n00:00:00,000 --> 00:00:01,000\r\nHOME(12.0090,57.4840) 2017.08.05 14:11:51\r\n"
        "GPS(12.0092,57.4844,19) BAROMETER:64.3\r\nISO:100 Shutter:60 EV:0 Fnum:2.2\r\n\r\n"
        "2\r\n00:00:01,000 --> 00:00:02,000\r\nHOME(12.0090,57.4840) 2017.08.05 14:11:52\r\n"
        "GPS(-0.5,-33.9,20.5) BAROMETER:65.0\r\n"
    )
    path = _write(tmp_path, "DJI_0002.SRT", text)

    # when read
    samples = read_srt_track(path)

    # then latitude and longitude are taken the right way round, not from HOME
    assert [(s.time_s, s.lat, s.lon, s.alt_m) for s in samples] == [
        (0.0, 57.4844, 12.0092, 19.0),
        (1.0, -33.9, -0.5, 20.5),
    ]


def test_dji_srt_longtitude_spelling(tmp_path: Path) -> None:
    # given a cue as some DJI firmware writes it: "longtitude", and the altitude as one field
    text = (
        "1\n00:00:00,000 --> 00:00:00,033\n"
        "[iso : 110] [shutter : 1/200.0] [fnum : 280] [ev : 0.7] [ct : 5064] [color_md : default] "
        "[focal_len : 240] [latitude: 57.484412] [longtitude: 12.009201] [altitude: 95.500000]\n"
    )
    path = _write(tmp_path, "DJI_0003.SRT", text)

    # when read / then the longitude is found under its misspelt name
    assert [(s.time_s, s.lat, s.lon, s.alt_m) for s in read_srt_track(path)] == [(0.0, 57.484412, 12.009201, 95.5)]


def test_dji_srt_cues_without_position_are_skipped(tmp_path: Path) -> None:
    # given a track whose first cues come before the GPS lock
    text = (
        "1\n00:00:00,000 --> 00:00:00,033\nFrameCnt: 1 [iso: 100] [shutter: 1/1000.0]\n\n"
        "2\n00:00:00,033 --> 00:00:00,066\nFrameCnt: 2 [iso: 100] [shutter: 1/1000.0]\n\n"
        + MODERN_CUE.format(
            n=3, start="00:00:00,066", end="00:00:00,100", ms=66, lat="57.48", lon="12.00", rel="1.0", abs="41.0"
        )
    )
    path = _write(tmp_path, "DJI_0004.SRT", text)

    # when read / then only the cue with a position gives a sample
    assert [(s.time_s, s.lat, s.lon) for s in read_srt_track(path)] == [(0.066, 57.48, 12.0)]


def test_dji_srt_without_any_position_is_refused(tmp_path: Path) -> None:
    # given subtitles with no position at all
    path = _write(
        tmp_path, "movie.srt", "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nBye\n"
    )

    # when read / then it says there is nothing to use
    with pytest.raises(MediaError, match=r"^movie\.srt: the track has no samples$"):
        read_srt_track(path)


def test_dji_srt_position_out_of_range_names_the_cue(tmp_path: Path) -> None:
    text = MODERN_CUE.format(
        n=1, start="00:00:00,000", end="00:00:00,033", ms=0, lat="97.5", lon="12.00", rel="1", abs="2"
    )
    with pytest.raises(MediaError, match=r"^bad\.srt: cue 1: .*97\.5"):
        read_srt_track(_write(tmp_path, "bad.srt", text))


# ---- by suffix -----------------------------------------------------------------------------------


def test_read_track_picks_the_reader_by_suffix(tmp_path: Path) -> None:
    # given a CSV and an SRT with upper-case suffixes / when read / then each is parsed by its kind
    csv_path = _write(tmp_path, "FLIGHT.CSV", "t,lat,lon\n0,57.48,12.0\n")
    srt_path = _write(tmp_path, "DJI_0001.SRT", "1\n00:00:02,000 --> 00:00:03,000\nGPS(12.0,57.48,10)\n")
    assert [(s.time_s, s.lat) for s in read_track(csv_path)] == [(0.0, 57.48)]
    assert [(s.time_s, s.lat) for s in read_track(srt_path)] == [(2.0, 57.48)]


def test_read_track_refuses_other_files_and_missing_ones(tmp_path: Path) -> None:
    # given a text file and a path with nothing behind it
    notes = _write(tmp_path, "notes.txt", "t,lat,lon\n0,57.48,12.0\n")

    # when read / then each is refused with the file's name and why
    with pytest.raises(MediaError, match=r"^notes\.txt: a telemetry track is a \.csv or a DJI \.srt file$"):
        read_track(notes)
    with pytest.raises(MediaError, match=r"^gone\.csv: file not found$"):
        read_track(tmp_path / "gone.csv")


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

    # when parsed / then each row is (lat, lon, alt, heading, 2D speed), divided by its own scale
    assert telemetry._samples_in(payload) == [
        pytest.approx((57.484412, 12.009201, 95.5, None, 3.25)),
        pytest.approx((57.484413, 12.009202, 95.6, None, 3.26)),
    ]


def test_cut_gpmf_payload_is_refused() -> None:
    # given a payload whose last item claims more bytes than there are
    payload = _gps5_payload([(574844120, 120092010, 95500, 3250, 3300)])[:-12]

    # when parsed / then it says what is cut short (read_gpmf adds the file name and the time)
    with pytest.raises(ValueError, match="cut short"):
        telemetry._samples_in(payload)


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_csv_time_that_is_not_a_number_of_seconds(tmp_path: Path, value: str) -> None:
    path = _write(tmp_path, "flight.csv", f"time_s,lat,lon\n{value},57.4,12\n")
    with pytest.raises(MediaError, match=r"^flight\.csv: line 2: time"):
        read_csv_track(path)


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        ("time_s,Latitude,lon", "1,95,12", "line 3: Latitude 95.0 is outside -90..90"),
        ("time_s,lat,Lng", "1,45,-200", "line 3: Lng -200.0 is outside -180..180"),
    ],
)
def test_csv_position_off_the_globe_names_the_column_as_the_file_spells_it(
    tmp_path: Path, header: str, row: str, message: str
) -> None:
    path = _write(tmp_path, "flight.csv", f"{header}\n0,57.4,12\n{row}\n")
    with pytest.raises(MediaError) as err:
        read_csv_track(path)
    assert str(err.value).startswith(f"flight.csv: {message}")
