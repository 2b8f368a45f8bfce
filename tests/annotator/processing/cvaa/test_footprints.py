"""Telemetry at a keyframe's time: interpolated between samples (heading the short way round), and
absent where the track does not reach or lacks altitude or heading."""

from __future__ import annotations

import pytest

from annotator.models import TelemetrySample
from annotator.processing.cvaa.footprints import _interpolate


def _track(*rows: tuple[float, float | None, float | None]) -> list[TelemetrySample]:
    return [TelemetrySample(time_s=t, lat=50.0 + t, lon=4.0, height_m=alt, heading_deg=h) for t, alt, h in rows]


def test_position_and_heading_are_interpolated_the_short_way_round() -> None:
    samples = _track((0.0, 40.0, 350.0), (2.0, 60.0, 10.0))
    lat, lon, alt, heading = _interpolate(samples, [s.time_s for s in samples], 1.0)  # type: ignore[misc]
    assert (lat, lon, alt) == pytest.approx((51.0, 4.0, 50.0))
    assert heading == pytest.approx(0.0, abs=1e-9) or heading == pytest.approx(360.0)


def test_no_place_outside_the_track_or_without_altitude_and_heading() -> None:
    samples = _track((0.0, 40.0, 0.0), (10.0, 40.0, 0.0))
    times = [s.time_s for s in samples]
    assert _interpolate(samples, times, 10.5) is not None  # within a second of the last sample
    assert _interpolate(samples, times, 12.0) is None
    assert _interpolate(samples, times, 5.0) is None  # five seconds from either sample: a gap
    bare = _track((0.0, None, 0.0), (1.0, 40.0, None))
    assert _interpolate(bare, [0.0, 1.0], 0.5) is None


def test_an_altitude_above_sea_level_is_no_height_for_a_footprint() -> None:
    # given a GPS5-style track: altitudes above sea level (a drone over a 400 m plateau) and no height
    samples = [TelemetrySample(time_s=t, lat=50.0, lon=4.0, alt_m=440.0, heading_deg=0.0) for t in (0.0, 1.0)]

    # when placed / then nothing: 440 m taken as the height would draw a footprint ten times too large
    assert _interpolate(samples, [0.0, 1.0], 0.5) is None
