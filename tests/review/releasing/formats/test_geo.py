"""GeoJSON read by geopandas (GDAL through pyogrio) and Moving Features read by pymeos, for every
such file of a built release."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from review.releasing.formats.geo import rfc7946_rings

from .conftest import release_root

pytestmark = pytest.mark.django_db
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def test_every_geojson_reads_with_geopandas(built_release) -> None:
    import geopandas
    from shapely.geometry import Polygon

    files = sorted((release_root(built_release) / "geo").glob("*.geojson"))
    assert [p.name for p in files] == ["saro-roundabout.geojson"]  # Kraklanda has no georeference
    for path in files:
        raw = json.loads(path.read_text())
        frame = geopandas.read_file(path, engine="pyogrio")
        assert len(frame) == len(raw["features"]) == 5
        kinds = dict(zip(frame["kind"], frame.geometry.geom_type, strict=True))
        assert kinds == {"ellipse": "Polygon", "polygon": "Polygon", "point": "Point", "polyline": "LineString"}
        assert frame.crs.to_epsg() == 4326
        assert frame.geometry.is_valid.all()
        minx, miny, maxx, maxy = frame.total_bounds
        assert 12.007 < minx <= maxx < 12.012 and 57.483 < miny <= maxy < 57.486  # lon, lat
        for feature in raw["features"]:
            if feature["geometry"]["type"] == "Polygon":
                ring = feature["geometry"]["coordinates"][0]
                assert ring[0] == ring[-1]  # closed, although the region was stored open
                assert Polygon(ring).exterior.is_ccw  # RFC 7946: exterior counter-clockwise
    # the region covers the pixel rectangle it was drawn as (corners in lon/lat)
    region = frame[frame["kind"] == "polygon"].geometry.iloc[0]
    assert len(region.exterior.coords) == 5


def test_rings_are_wound_by_rfc_7946_in_lon_lat() -> None:
    clockwise = [[0, 0], [0, 1], [1, 1], [1, 0]]  # open and clockwise
    hole_ccw = [[0.2, 0.2], [0.4, 0.2], [0.4, 0.4], [0.2, 0.2]]
    outer, hole = rfc7946_rings([clockwise, hole_ccw])
    assert outer == [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    assert hole == [[0.2, 0.2], [0.4, 0.4], [0.4, 0.2], [0.2, 0.2]]  # holes clockwise


def test_every_trajectory_loads_with_pymeos(built_release, monkeypatch) -> None:
    from pymeos import TGeogPointSeq, TGeomPointSeq, pymeos_initialize

    # pymeos points PROJ_DATA/PROJ_LIB at the older proj.db of its wheel when they are unset; pyproj
    # would then read that database in every later test of this process. Restored after the test.
    for name in ("PROJ_DATA", "PROJ_LIB"):
        monkeypatch.setenv(name, "unset-by-pymeos-test")
        monkeypatch.delenv(name)
    pymeos_initialize()
    files = sorted((release_root(built_release) / "geo").glob("*.movingfeatures.json"))
    assert [p.name for p in files] == ["saro-roundabout.movingfeatures.json"]
    seen = {}
    for path in files:
        for feature in json.loads(path.read_text())["features"]:
            text = json.dumps(feature["temporalGeometry"])
            for kind in (TGeomPointSeq, TGeogPointSeq):
                sequence = kind.from_mfjson(text)
                times = [(t - EPOCH) / timedelta(seconds=1) for t in sequence.timestamps()]
                seen[feature["properties"]["label"]] = (sequence.num_instants(), times)
                lon, lat = sequence.start_value().x, sequence.start_value().y
                assert 12.007 < lon < 12.012 and 57.483 < lat < 57.486
    assert seen["bus"] == (3, [0.0, 0.5, 1.5])
    # two vertices at 0.25 s: a sequence needs increasing instants, so the first one stays
    assert seen["car"] == (3, [0.25, 1.0, 2.0])
