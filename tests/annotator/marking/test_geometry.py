"""annotator.marking.geometry: mark shapes in image pixels, with the field message a person sees."""

from __future__ import annotations

import math

import pytest
from django.core.exceptions import ValidationError

from annotator.marking.geometry import (
    ellipse_polygon,
    geometries_lonlat,
    geometry_lonlat,
    region_shape,
    validate_geometry,
    with_closed_rings,
)
from media_tools.geo import GeoReference, georef_from_corners

W, H = 200, 100


def _error(kind: str, geometry: object, *, width: int = W, height: int = H) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as err:
        validate_geometry(kind, geometry, width=width, height=height)
    return err.value.message_dict


def polygon(*pts: tuple[float, float]) -> dict:
    return {"type": "Polygon", "coordinates": [[list(p) for p in pts]]}


def ellipse(cx: float, cy: float, rx: float, ry: float, rotation: object = 0) -> dict:
    return {"type": "Ellipse", "center": [cx, cy], "radii": [rx, ry], "rotation": rotation}


def test_valid_polygon_returns_its_shape() -> None:
    # given a 50 x 30 px rectangle inside a 200 x 100 image / when validated
    shape = validate_geometry("polygon", polygon((10, 10), (60, 10), (60, 40), (10, 40)), width=W, height=H)

    # then the shapely shape has its area and bounds
    assert shape.area == 1500
    assert shape.bounds == (10, 10, 60, 40)


def test_closed_ring_is_accepted() -> None:
    shape = validate_geometry("polygon", polygon((0, 0), (10, 0), (10, 10), (0, 0)), width=W, height=H)
    assert shape.area == 50


def test_self_intersecting_polygon_is_refused() -> None:
    # given a bow tie: edges (0,0)-(50,50) and (50,0)-(0,50) cross at (25,25)
    errors = _error("polygon", polygon((0, 0), (50, 50), (50, 0), (0, 50)))

    # then the message says why, in shapely's words, with the crossing point
    assert list(errors) == ["geometry"]
    assert "not a simple polygon" in errors["geometry"][0]
    assert "Self-intersection[25 25]" in errors["geometry"][0]


@pytest.mark.parametrize(
    ("geometry", "message"),
    [
        (polygon((0, 0), (10, 0)), "at least 3 distinct vertices"),
        (polygon((0, 0), (10, 0), (10, 0), (0, 0)), "at least 3 distinct vertices"),
        (polygon((0, 0), (10, 10), (20, 20)), "not a simple polygon"),  # collinear: no area
        ({"type": "Polygon", "coordinates": [[[0, 0], [9, 0], [9, 9]], [[1, 1], [2, 1], [2, 2]]]}, "no holes"),
        ({"type": "Polygon"}, "missing 'coordinates'"),
        ({"type": "Point", "coordinates": [1, 1]}, "needs geometry of type 'Polygon'"),
        (polygon((0, 0), (10, "a"), (0, 10)), "expected [x, y] in pixels"),
        (polygon((0, 0), (10, math.nan), (0, 10)), "expected [x, y] in pixels"),
        (polygon((0, 0), (10, math.inf), (0, 10)), "expected [x, y] in pixels"),
    ],
)
def test_bad_polygons_are_refused(geometry: dict, message: str) -> None:
    errors = _error("polygon", geometry)
    assert message in errors["geometry"][0]


def test_vertex_outside_image_names_the_vertex() -> None:
    # given a polygon whose third vertex is right of a 200 px wide image
    errors = _error("polygon", polygon((10, 10), (60, 10), (201, 40), (10, 40)))

    # then
    assert errors == {"geometry": ["vertex 2 (201.0, 40.0) is outside the 200x100 px satellite image"]}


def test_vertices_on_the_border_are_inside() -> None:
    shape = validate_geometry("polygon", polygon((0, 0), (W, 0), (W, H), (0, H)), width=W, height=H)
    assert shape.area == W * H


@pytest.mark.parametrize(
    ("geometry", "ok"),
    [
        ({"type": "Point", "coordinates": [0, 0]}, True),
        ({"type": "Point", "coordinates": [200, 100]}, True),
        ({"type": "Point", "coordinates": [-0.5, 50]}, False),
        ({"type": "Point", "coordinates": [50, 100.5]}, False),
    ],
)
def test_point_bounds(geometry: dict, ok: bool) -> None:
    if ok:
        assert validate_geometry("point", geometry, width=W, height=H).coords[0] == tuple(geometry["coordinates"])
    else:
        assert "outside the 200x100 px" in _error("point", geometry)["geometry"][0]


def test_polyline_needs_two_vertices() -> None:
    assert (
        validate_geometry(
            "polyline", {"type": "LineString", "coordinates": [[0, 0], [30, 40]]}, width=W, height=H
        ).length
        == 50
    )
    errors = _error("polyline", {"type": "LineString", "coordinates": [[0, 0]]})
    assert errors == {"geometry": ["a trajectory needs at least 2 vertices"]}


def test_ellipse_area_and_extent() -> None:
    # given an ellipse with radii 40 x 20 at (100, 50)
    shape = validate_geometry("ellipse", ellipse(100, 50, 40, 20), width=W, height=H)

    # then it is a 64-gon whose area is within 0.2% of pi*a*b and whose extent is the radii
    assert shape.area == pytest.approx(math.pi * 40 * 20, rel=2e-3)
    assert shape.bounds == pytest.approx((60, 30, 140, 70), abs=0.1)


def test_ellipse_rotation_turns_the_extent() -> None:
    # given a wide ellipse that fits the 200 x 100 image lying down but not standing up
    lying = ellipse(100, 50, 60, 10, rotation=0)
    standing = ellipse(100, 50, 60, 10, rotation=90)

    # then rotation is applied before the bounds check
    validate_geometry("ellipse", lying, width=W, height=H)
    errors = _error("ellipse", standing)
    assert "outside the 200x100 px satellite image" in errors["geometry"][0]
    assert ellipse_polygon(100, 50, 60, 10, 90).bounds == pytest.approx((90, -10, 110, 110), abs=0.1)


def test_ellipse_center_inside_but_edge_outside_is_refused() -> None:
    errors = _error("ellipse", ellipse(190, 50, 20, 10))
    assert "outside the 200x100 px satellite image" in errors["geometry"][0]


@pytest.mark.parametrize(
    ("geometry", "message"),
    [
        (ellipse(100, 50, 0, 10), "ellipse radii must be positive"),
        (ellipse(100, 50, 10, -1), "ellipse radii must be positive"),
        (ellipse(100, 50, 10, 10, rotation="north"), "ellipse rotation must be a number of degrees"),
        ({"type": "Ellipse", "center": [100, 50]}, "expected [x, y] in pixels, got None"),
        ({"type": "Polygon", "center": [1, 1], "radii": [1, 1]}, "needs geometry of type 'Ellipse'"),
    ],
)
def test_bad_ellipses_are_refused(geometry: dict, message: str) -> None:
    assert message in _error("ellipse", geometry)["geometry"][0]


def test_unknown_kind_is_a_kind_error() -> None:
    assert _error("circle", {"type": "Circle"}) == {"kind": ["unknown mark kind 'circle'"]}


def test_geometry_must_be_an_object() -> None:
    assert "needs geometry of type 'Point'" in _error("point", [1, 2])["geometry"][0]


def test_region_shape_of_ellipse_and_polygon() -> None:
    assert region_shape("ellipse", ellipse(50, 50, 10, 10)).centroid.coords[0] == pytest.approx((50, 50))
    assert region_shape("polygon", polygon((0, 0), (4, 0), (4, 4), (0, 4))).area == 16


def test_an_open_ring_is_closed_for_storage_and_a_closed_one_kept() -> None:
    open_ring = polygon((0, 0), (50, 0), (50, 30))
    validate_geometry("polygon", open_ring, width=W, height=H)
    assert with_closed_rings("polygon", open_ring)["coordinates"] == [[[0, 0], [50, 0], [50, 30], [0, 0]]]
    assert open_ring["coordinates"] == [[[0, 0], [50, 0], [50, 30]]]  # the caller's dict is left as it was
    closed = polygon((0, 0), (50, 0), (50, 30), (0, 0))
    assert with_closed_rings("polygon", closed) == closed
    point = {"type": "Point", "coordinates": [3, 4]}
    assert with_closed_rings("point", point) is point


@pytest.mark.parametrize(
    ("kind", "geometry", "message"),
    [
        ("point", {"type": "Point", "coordinates": [True, 5]}, "expected [x, y] in pixels"),
        ("polyline", {"type": "LineString", "coordinates": [[0, 0], [False, 1]]}, "expected [x, y] in pixels"),
        (
            "ellipse",
            {"type": "Ellipse", "center": [50, 50], "radii": [5, 5], "rotation": True},
            "ellipse rotation must be a number of degrees",
        ),
        (
            "polygon",
            {"type": "Polygon", "coordinates": [[[i % 100, (i * 7) % 100] for i in range(5_001)]]},
            "5,001 vertices; a mark has at most 5,000",
        ),
        (
            "polyline",
            {"type": "LineString", "coordinates": [[i % 100, 3] for i in range(400_000)]},
            "400,000 vertices; a mark has at most 5,000",
        ),
    ],
)
def test_booleans_and_huge_vertex_lists_are_refused(kind: str, geometry: dict, message: str) -> None:
    with pytest.raises(ValidationError) as err:
        validate_geometry(kind, geometry, width=200, height=200)
    assert message in err.value.message_dict["geometry"][0]


def _lonlat_one_ring_at_a_time(geometry: dict, ref: GeoReference) -> dict | None:
    """The WGS84 form as it was made before the page was projected in one call: a pyproj call per
    ring, the ellipse's outline from a shapely polygon. The reference the batched form must equal."""

    def ll(points: list) -> list:
        lon, lat = ref.pixel_to_lonlat([p[0] for p in points], [p[1] for p in points])
        return [[round(float(a), 8), round(float(b), 8)] for a, b in zip(lon, lat, strict=True)]

    kind = geometry["type"]
    if kind == "Point":
        return {"type": "Point", "coordinates": ll([geometry["coordinates"]])[0]}
    if kind == "LineString":
        return {"type": "LineString", "coordinates": ll(geometry["coordinates"])}
    if kind == "Polygon":
        return {"type": "Polygon", "coordinates": [ll(r) for r in geometry["coordinates"]]}
    (cx, cy), (rx, ry) = geometry["center"], geometry["radii"]
    ring = [list(p) for p in ellipse_polygon(cx, cy, rx, ry, float(geometry.get("rotation", 0)), n=32).exterior.coords]
    return {"type": "Polygon", "coordinates": [ll(ring)], "center": ll([[cx, cy]])[0]}


def test_a_page_projected_in_one_call_is_each_geometry_projected_alone() -> None:
    # given a georeferenced image and one geometry of each kind (a polygon with a hole, an empty line)
    ref = georef_from_corners(
        {"tl": (57.49, 12.00), "tr": (57.49, 12.02), "br": (57.48, 12.02), "bl": (57.48, 12.00)}, width=W, height=H
    )
    geometries = [
        {"type": "Point", "coordinates": [100, 50]},
        {"type": "LineString", "coordinates": [[0, 0], [10.5, 20.25], [199, 99]]},
        {
            "type": "Polygon",
            "coordinates": [[[10, 10], [60, 10], [60, 60], [10, 10]], [[20, 20], [30, 20], [30, 30], [20, 20]]],
        },
        ellipse(100, 50, 40, 20, rotation=30),
        {"type": "LineString", "coordinates": []},
        {"type": "Unknown"},
    ]
    # when they are projected together / then each is what projecting it alone, ring by ring, gave
    together = geometries_lonlat(geometries, ref)
    assert together[:5] == [_lonlat_one_ring_at_a_time(g, ref) for g in geometries[:5]]
    assert together[5] is None
    assert [geometry_lonlat(g, ref) for g in geometries] == together
    # and without a georeference there is none
    assert geometries_lonlat(geometries, None) == [None] * len(geometries)
