"""media_tools.telemetry.tracks: uploaded CSV and DJI SRT tracks with the mistakes people make in
them, and the columns an admin names when the guess is wrong."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from media_tools import MediaError, preview_csv_track, read_csv_track, read_srt_track, read_track

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
    # then every frame is a sample at its clip time, with the camera's (gimbal's) yaw as the heading
    # and rel_alt_m as the height above take-off, never as an altitude above sea level
    assert len(samples) == len(rows) and samples[0].time_s == 0.0
    assert (samples[1].lat, samples[1].lon, samples[1].heading_deg, samples[1].height_m) == (
        float(rows[1]["lat"]), float(rows[1]["lon"]), float(rows[1]["gimbal_yaw_deg"]),
        float(rows[1]["rel_alt_m"]))  # fmt: skip
    assert {s.alt_m for s in samples} == {None}
    assert all(39 < (s.height_m or 0) < 41 for s in samples)


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
    assert str(err.value) == "flight.csv: no column for latitude, longitude (have: seconds, y, x, alt)"


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


# ---- columns named by the admin -------------------------------------------------------------------


def test_preview_shows_the_header_first_rows_and_the_guess(testdata: Path) -> None:
    # given the Brighton log / when previewed for the upload form
    preview = preview_csv_track(testdata / "brighton_beach" / "frames.csv", rows=3)

    # then it has the header as spelled, three rows as text, and a guess for each field it can tell
    assert preview.header[:3] == ["clip_time_s", "file", "capture_time"]
    assert len(preview.rows) == 3 and preview.rows[0][0] == "0"
    assert preview.columns == {
        "time_s": "clip_time_s",
        "lat": "lat",
        "lon": "lon",
        "height_m": "rel_alt_m",
        "heading_deg": "gimbal_yaw_deg",
    }


def test_named_columns_override_the_guess_and_empty_means_none(tmp_path: Path) -> None:
    # given a logger whose names are nobody's guess, and an "alt" that is really above take-off
    path = _write(tmp_path, "log.csv", "clock,north,east,alt,yaw\n0,57.4,12.0,80,10\n1,57.5,12.1,81,11\n")

    # when read with the admin's columns: "alt" is the height, and the yaw is not the camera's heading
    samples = read_track(path, columns={"time_s": "clock", "lat": "north", "lon": "east", "height_m": "alt",
                                        "heading_deg": ""})  # fmt: skip

    # then the named columns are read, "alt" is not also guessed as sea level, and no heading is read
    assert [(s.time_s, s.lat, s.lon, s.height_m, s.alt_m, s.heading_deg) for s in samples] == [
        (0.0, 57.4, 12.0, 80.0, None, None),
        (1.0, 57.5, 12.1, 81.0, None, None),
    ]


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"altitude": "alt"}, r"^log\.csv: unknown telemetry field altitude \(fields: time_s, lat, lon, "),
        ({"height_m": "rel_alt"}, r"^log\.csv: no column 'rel_alt' for height above take-off \(m\) \(the file has: "),
        ({"height_m": "alt", "alt_m": "alt"}, r"^log\.csv: column 'alt' is named for both height above take-off"),
        ({"lat": ""}, r"^log\.csv: no column for latitude \(have: "),
    ],
)
def test_wrong_named_columns_are_refused_with_the_field(tmp_path: Path, columns: dict, expected: str) -> None:
    path = _write(tmp_path, "log.csv", "time_s,lat,lon,alt\n0,57.4,12.0,80\n")
    with pytest.raises(MediaError, match=expected):
        read_track(path, columns=columns)


def test_columns_cannot_be_named_for_an_srt(tmp_path: Path) -> None:
    path = _write(tmp_path, "flight.srt", "1\n00:00:00,000 --> 00:00:01,000\n[latitude: 57.4] [longitude: 12.0]\n")
    with pytest.raises(MediaError, match="columns can be named for a CSV track only"):
        read_track(path, columns={"height_m": "rel_alt"})


def test_srt_keeps_height_above_take_off_apart_from_sea_level(tmp_path: Path) -> None:
    text = "1\n00:00:00,000 --> 00:00:01,000\n[latitude: 57.4] [longitude: 12.0] [rel_alt: 39.8 abs_alt: 210.3]\n"
    [sample] = read_srt_track(_write(tmp_path, "flight.srt", text))
    assert (sample.height_m, sample.alt_m) == (39.8, 210.3)
