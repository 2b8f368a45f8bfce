"""media_tools.imagery.modelview: the satellite image as a model is shown it, every shape drawn
where it is and named, and each image option cut out around its shape."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media_tools import MediaError
from media_tools.imagery import Shape, candidates_box, draw_option, draw_view
from media_tools.imagery.modelview import (
    CANDIDATE_MARGIN,
    CANDIDATE_MARGIN_PX,
    PALETTE,
    crop_box,
    offset_line,
    pace_points,
)

GREY = 90


def _grey(tmp_path: Path, width: int = 400, height: int = 300) -> Path:
    path = tmp_path / "sat.png"
    Image.new("RGB", (width, height), (GREY, GREY, GREY)).save(path)
    return path


def _pixels(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB")).astype(int)


def _near(px: np.ndarray, colour: tuple[int, int, int], tol: int = 40) -> bool:
    return bool(np.abs(px - np.array(colour)).max() <= tol)


def _box(x0: float, y0: float, x1: float, y1: float) -> dict:
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]}


def test_the_view_keeps_the_whole_image_and_draws_each_shape_in_its_colour(tmp_path: Path) -> None:
    # given a plain image and three shapes
    shapes = [
        Shape(_box(50, 100, 150, 200), "parking lot"),
        Shape({"type": "Point", "coordinates": [300, 60]}, "A"),
        Shape({"type": "Ellipse", "center": [300, 220], "radii": [40, 20], "rotation": 0}, "tower"),
    ]
    # when the view is drawn
    drawn = draw_view(_grey(tmp_path), tmp_path / "view.jpg", shapes)
    px = _pixels(tmp_path / "view.jpg")
    # then the picture is the whole image, unscaled
    assert (drawn.width, drawn.height, drawn.scale) == (400, 300, 1.0) and px.shape == (300, 400, 3)
    # each shape in its own colour where it lies: the polygon's left edge, the point, the ellipse's right end
    assert _near(px[150, 50], PALETTE[0])
    assert _near(px[60, 300], PALETTE[1])
    assert _near(px[220, 340], PALETTE[2])
    # inside the polygon and in an empty corner, the image is untouched
    assert _near(px[150, 100], (GREY,) * 3, 8) and _near(px[290, 10], (GREY,) * 3, 8)


def test_each_shape_gets_a_name_tag_in_its_colour(tmp_path: Path) -> None:
    # given one region
    draw_view(_grey(tmp_path), tmp_path / "view.jpg", [Shape(_box(100, 150, 300, 250), "parking lot")])
    px = _pixels(tmp_path / "view.jpg")
    # then above its top-left corner a box of its colour holds dark text
    tag = px[100:150, 100:300]
    filled = np.all(np.abs(tag - np.array(PALETTE[0])) <= 40, axis=2)
    dark = np.all(tag < 60, axis=2)
    assert filled.sum() > 500 and dark.sum() > 50


def test_a_large_image_is_scaled_down_with_its_shapes(tmp_path: Path) -> None:
    # given an image twice as large as the limit
    src = _grey(tmp_path, 800, 400)
    # when drawn with a 400 px limit
    drawn = draw_view(
        src, tmp_path / "view.jpg", [Shape({"type": "Point", "coordinates": [600, 200]}, "A")], max_side=400
    )
    # then it is halved, and the point drawn at half its coordinates
    assert (drawn.width, drawn.height, drawn.scale) == (400, 200, 0.5)
    assert _near(_pixels(tmp_path / "view.jpg")[100, 300], PALETTE[0])


def test_a_trajectory_shows_where_it_starts_ends_and_its_pace(tmp_path: Path) -> None:
    # given a straight timed track that is slow at first, then fast
    track = {"type": "LineString", "coordinates": [[40, 150], [200, 150], [360, 150]]}
    shape = Shape(track, "B", times=(0.0, 6.0, 8.0))
    # then its pace dots crowd in the first half: at 2, 4 and 6 s of its 8 s
    dots = pace_points([(40, 150), (200, 150), (360, 150)], shape.times)
    assert [round(x) for x, _ in dots] == [93, 147, 200]
    # when drawn, the line carries the colour and the arrowhead widens at the end
    draw_view(_grey(tmp_path), tmp_path / "view.jpg", [shape])
    px = _pixels(tmp_path / "view.jpg")
    assert _near(px[150, 100], PALETTE[0])
    head = np.all(np.abs(px[130:170, 330:360] - np.array(PALETTE[0])) <= 40, axis=2).sum()
    tail = np.all(np.abs(px[130:170, 100:130] - np.array(PALETTE[0])) <= 40, axis=2).sum()
    assert head > 2 * tail


def test_pace_differs_between_a_track_and_its_time_warp() -> None:
    points = [(0.0, 0.0), (100.0, 0.0)]
    even = pace_points(points, (0.0, 10.0))
    assert [x for x, _ in even] == [25.0, 50.0, 75.0]
    assert pace_points(points, ()) == [] and pace_points(points, (3.0, 3.0)) == []


def test_an_option_is_the_image_around_its_shape(tmp_path: Path) -> None:
    # given a 1000 x 800 image with a gradient, and a small region near its right edge
    src = tmp_path / "sat.png"
    ramp = np.tile(np.linspace(0, 255, 1000, dtype=np.uint8), (800, 1))
    Image.fromarray(np.dstack([ramp] * 3)).save(src)
    region = _box(900, 380, 980, 420)
    # when its option image is drawn
    drawn = draw_option(src, tmp_path / "A.jpg", Shape(region, "A"))
    # then it is the region with context around it, pushed inside the image
    left, top, right, bottom = crop_box(region, 1000, 800)
    assert right == 1000 and left < 900 - 40 and top < 380 - 40 and bottom > 420 + 40
    assert (drawn.width, drawn.height) == (right - left, bottom - top)
    # and the region is drawn at its place in the crop
    assert _near(_pixels(tmp_path / "A.jpg")[400 - top, 900 - left], PALETTE[0])


def test_candidates_are_cut_with_a_margin_inside_the_data_whatever_their_order(tmp_path: Path) -> None:
    # given a 600 x 300 image whose right half is black, and three candidates on the data near its edge
    src = tmp_path / "half.png"
    pixels = np.zeros((300, 600, 3), np.uint8)
    pixels[:, :300] = (90, 120, 60)
    Image.fromarray(pixels).save(src)
    candidates = [
        {"type": "Point", "coordinates": [100, 100]},
        {"type": "LineString", "coordinates": [[150, 80], [290, 200]]},
        _box(120, 150, 200, 220),
    ]
    # when they are cut out, with the data's bounding box as the limit
    cut = candidates_box(candidates, 600, 300, within=(0, 0, 300, 300))
    # then the cut is their box (100..290 x 80..220) grown by the margin, but never past the data
    margin = max(CANDIDATE_MARGIN * 190, CANDIDATE_MARGIN_PX)
    assert cut == (math.ceil(100 - margin), math.ceil(80 - margin), 300, math.floor(220 + margin))
    assert candidates_box(candidates[::-1], 600, 300, within=(0, 0, 300, 300)) == cut
    # and each option image is that cut, with no black border in it
    for i, geometry in enumerate(candidates):
        drawn = draw_option(src, tmp_path / f"{i}.jpg", Shape(geometry, "ABC"[i]), crop=cut)
        assert (drawn.width, drawn.height, drawn.origin) == (cut[2] - cut[0], cut[3] - cut[1], cut[:2])
        columns = np.median(_pixels(tmp_path / f"{i}.jpg").max(axis=2), axis=0)
        assert columns.min() > 60
    # and the sheet, cut alike, shows each candidate where it lies in the cut
    view = draw_view(src, tmp_path / "view.jpg", [Shape(g, "ABC"[i]) for i, g in enumerate(candidates)], crop=cut)
    assert (view.width, view.height) == (cut[2] - cut[0], cut[3] - cut[1])
    assert _near(_pixels(tmp_path / "view.jpg")[100 - cut[1], 100 - cut[0]], PALETTE[0])
    # without a limit the margin may reach into the black half
    assert candidates_box(candidates, 600, 300)[2] == math.floor(290 + margin)


def test_an_option_of_a_long_track_shows_all_of_it(tmp_path: Path) -> None:
    track = {"type": "LineString", "coordinates": [[20, 200], [380, 220]]}
    assert crop_box(track, 400, 300) == (0, 0, 400, 300)


def test_an_option_never_exceeds_its_size_limit(tmp_path: Path) -> None:
    src = _grey(tmp_path, 400, 300)
    drawn = draw_option(src, tmp_path / "A.jpg", Shape(_box(10, 10, 390, 290), "A"), max_side=100)
    assert max(drawn.width, drawn.height) == 100


def test_a_real_aerial_photo_is_drawn(testdata: Path, tmp_path: Path) -> None:
    src = testdata / "satellite/opencv_aero1_oblique_aerial.jpg"
    with Image.open(src) as im:
        size = im.size
    drawn = draw_view(src, tmp_path / "view.jpg", [Shape(_box(20, 20, 120, 90), "field")])
    assert (drawn.width, drawn.height) == size


def test_what_is_not_an_image_is_refused_by_name_and_leaves_nothing(tmp_path: Path) -> None:
    src = tmp_path / "sat.png"
    src.write_text("not an image")
    with pytest.raises(MediaError, match=r"^sat\.png: cannot be read as an image"):
        draw_view(src, tmp_path / "view.jpg", [])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sat.png"]


def test_an_image_over_the_pixel_limit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="pixel limit"):
        draw_view(_grey(tmp_path), tmp_path / "view.jpg", [], max_pixels=1000)


def test_tracks_on_one_path_are_drawn_side_by_side(tmp_path: Path) -> None:
    # given a track and its reversal: the same path
    line = [[40, 150], [360, 150]]
    shapes = [
        Shape({"type": "LineString", "coordinates": line}, "A"),
        Shape({"type": "LineString", "coordinates": line[::-1]}, "B"),
    ]
    # when drawn / then both colours show across the path, one above the other
    draw_view(_grey(tmp_path), tmp_path / "view.jpg", shapes)
    column = _pixels(tmp_path / "view.jpg")[130:170, 200]
    rows_a = [y for y, px in enumerate(column) if _near(px, PALETTE[0])]
    rows_b = [y for y, px in enumerate(column) if _near(px, PALETTE[1])]
    assert rows_a and rows_b and set(rows_a).isdisjoint(rows_b)


def test_offset_line_keeps_its_distance_at_a_bend() -> None:
    moved = offset_line([(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)], 1.0)
    assert moved[0] == pytest.approx((0.0, -1.0))
    assert moved[1] == pytest.approx((11.0, -1.0))
    assert moved[2] == pytest.approx((11.0, 10.0))


def test_names_of_shapes_at_one_place_do_not_hide_each_other(tmp_path: Path) -> None:
    # given two points at the same place
    same = {"type": "Point", "coordinates": [100, 100]}
    draw_view(_grey(tmp_path), tmp_path / "view.jpg", [Shape(same, "A"), Shape(same, "B")])
    px = _pixels(tmp_path / "view.jpg")
    # then both name tags show, each in its colour
    for colour in PALETTE[:2]:
        assert np.all(np.abs(px[90:200, 100:160] - np.array(colour)) <= 40, axis=2).sum() > 100
