"""media_tools.cvaa.tracking: frame-to-frame homographies chained from anchors through a pan, re-anchored
on the map, with drift flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from media_tools.cvaa import GeometricLocator, Placement, chain, frame_to_frame, load_rgb
from media_tools.cvaa.footprints import frame_corners
from media_tools.cvaa.geometry import project
from media_tools.cvaa.matching import FrameFeatureCache

SIZE = (480, 320)


@pytest.fixture(scope="module")
def ground(testdata: Path) -> np.ndarray:
    return load_rgb(testdata / "brighton_beach" / "brighton_beach_ortho_utm15n.tif")


def _pan(n: int) -> list[np.ndarray]:
    """Frame -> map homographies of a camera panning east and turning slowly, 25 px and 2 degrees a frame."""
    out = []
    for i in range(n):
        a = np.radians(10 + 2 * i)
        rot = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        centre = np.array([[1, 0, 500 + 25 * i], [0, 1, 520 + 5 * i], [0, 0, 1]], float)
        out.append(centre @ rot @ np.array([[1, 0, -SIZE[0] / 2], [0, 1, -SIZE[1] / 2], [0, 0, 1]]))
    return out


HALF = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])


def _frames(ground: np.ndarray, truths: list[np.ndarray]) -> list[np.ndarray]:
    """Views through corner-convention homographies (OpenCV samples at pixel centres: half shifts)."""
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return [cv2.warpPerspective(ground, np.linalg.inv(HALF) @ h @ HALF, SIZE, flags=flags) for h in truths]


def _anchor(h: np.ndarray) -> Placement:
    return Placement("control_points", project(h, frame_corners(*SIZE)), SIZE, 1.0, 0.5, h)


def _corner_error(p: Placement, h: np.ndarray) -> float:
    return float(np.max(np.linalg.norm(p.quad - project(h, frame_corners(*SIZE)), axis=1)))


def test_frame_to_frame_maps_b_onto_a(ground: np.ndarray) -> None:
    truths = _pan(2)
    a, b = _frames(ground, truths)

    found = frame_to_frame(a, b)

    assert found is not None
    homography, numbers = found
    expected = np.linalg.inv(truths[0]) @ truths[1]  # b px -> map -> a px
    pts = frame_corners(*SIZE)
    assert np.max(np.abs(project(homography, pts) - project(expected, pts))) < 1.5
    assert numbers["inliers"] >= 50 and 0 < numbers["confidence"] <= 1


def test_frames_of_unrelated_ground_do_not_chain(ground: np.ndarray) -> None:
    far = _pan(1)[0].copy()
    far[:2, 2] += [1100, 300]
    a, b = _frames(ground, [_pan(1)[0], far])
    assert frame_to_frame(a, b) is None


def test_a_pan_chained_from_both_ends_stays_within_tolerance(ground: np.ndarray) -> None:
    # given a 12-frame pan with its first and last frames placed
    truths = _pan(12)
    frames = _frames(ground, truths)

    placed = chain(frames, {0: _anchor(truths[0]), 11: _anchor(truths[11])})

    # then every frame between is chained from its nearer anchor, within 3 px, uncertainty growing with steps
    assert placed[0] is not None and placed[0].source == "control_points"
    for i in range(1, 11):
        p = placed[i]
        assert p is not None and p.source == "chaining"
        assert p.details["from"] == (0 if i <= 5 else 11)
        assert not p.details["drift"]
        assert _corner_error(p, truths[i]) < 3.0, i
    assert placed[5].uncertainty_px > placed[1].uncertainty_px > 0.5  # type: ignore[union-attr]
    # and every placement is plain JSON, as the pipeline stores it
    assert json.loads(json.dumps([p.to_dict() for p in placed if p is not None]))[3]["details"]["from"] == 0


def test_a_frame_no_chain_reaches_is_none(ground: np.ndarray) -> None:
    truths = _pan(3)
    frames = _frames(ground, truths)
    frames[2] = np.zeros_like(frames[2])  # a black frame (a cut, a lens cap)
    placed = chain(frames, {0: _anchor(truths[0])})
    assert placed[1] is not None and placed[2] is None


def test_an_injected_error_is_flagged_as_drift_and_the_map_reanchors(ground: np.ndarray) -> None:
    # given the pan anchored on a placement that is 60 px off, and the map to check against
    truths = _pan(8)
    frames = _frames(ground, truths)
    wrong = np.array([[1, 0, 60], [0, 1, 0], [0, 0, 1]], float) @ truths[0]
    locator = GeometricLocator(ground[300:900, 300:1200], scales=(1.0,))
    shift = np.array([[1, 0, -300], [0, 1, -300], [0, 0, 1]], float)  # map px of that crop

    placed = chain(frames, {0: _anchor(shift @ wrong)}, locator=locator, reanchor_every=3)

    # then the first check (frame 3) disagrees: drift is flagged there, the walk follows the map's
    # placement from then on, and the frames chained from the wrong anchor are walked again from it
    check = placed[3]
    assert check is not None and check.source == "matching" and check.details["drift"]
    assert check.details["chained_disagreement_px"] > 40
    for i in (1, 2):
        p = placed[i]
        assert p is not None and p.details["rechained_after_drift"] and p.details["from"] == 3
    for i in (1, 2, 3, 4, 5, 6, 7):
        assert _corner_error(placed[i], shift @ truths[i]) < 3.0, i  # type: ignore[arg-type]
    assert placed[0] is not None and _corner_error(placed[0], shift @ truths[0]) > 50  # the anchor is kept


def test_a_consistent_match_reanchors_without_drift(ground: np.ndarray) -> None:
    truths = _pan(5)
    frames = _frames(ground, truths)
    locator = GeometricLocator(ground[300:900, 300:1200], scales=(1.0,))
    shift = np.array([[1, 0, -300], [0, 1, -300], [0, 0, 1]], float)

    placed = chain(frames, {0: _anchor(shift @ truths[0])}, locator=locator, reanchor_every=2)

    assert placed[2] is not None and placed[2].source == "matching"
    assert placed[2].details["reanchored"] and not placed[2].details["drift"]
    assert placed[3] is not None and placed[3].details["from"] == 2
    assert not any(p.details.get("drift") for p in placed[1:] if p is not None)


class _CountingLocator(GeometricLocator):
    """The real locator, counting the frames it is asked to match."""

    calls = 0

    def locate(self, frame_rgb: np.ndarray, **kw: Any) -> Placement | None:
        self.calls += 1
        return super().locate(frame_rgb, **kw)


def test_a_check_takes_the_callers_match_instead_of_matching_again(ground: np.ndarray) -> None:
    # given the pan anchored 60 px off, and the caller's own matching of frames 3 (found) and 6 (nothing)
    truths = _pan(8)
    frames = _frames(ground, truths)
    wrong = np.array([[1, 0, 60], [0, 1, 0], [0, 0, 1]], float) @ truths[0]
    locator = _CountingLocator(ground[300:900, 300:1200], scales=(1.0,))
    shift = np.array([[1, 0, -300], [0, 1, -300], [0, 0, 1]], float)
    known = {3: locator.locate(frames[3]), 6: None}
    assert known[3] is not None
    locator.calls = 0

    placed = chain(frames, {0: _anchor(shift @ wrong)}, locator=locator, reanchor_every=3, matches=known)

    # then no frame is matched again: the check at frame 3 re-anchors on the given match, flags the drift
    # and walks frames 1 and 2 again from it; the one at frame 6 (no match) leaves the chained placement
    assert locator.calls == 0
    check = placed[3]
    assert check is not None and check.source == "matching" and check.details["drift"]
    assert all(placed[i].details["rechained_after_drift"] for i in (1, 2))  # type: ignore[union-attr]
    assert placed[6] is not None and placed[6].source == "chaining" and placed[6].details["from"] == 3
    for i in (1, 2, 3, 4, 5, 6, 7):
        assert _corner_error(placed[i], shift @ truths[i]) < 3.0, i  # type: ignore[arg-type]


def test_chaining_with_the_features_matching_described_describes_nothing_again(
    ground: np.ndarray, described: list[tuple[int, ...]]
) -> None:
    # given a pan whose every frame was described once for matching (a cache the caller filled)
    truths = _pan(6)
    frames = _frames(ground, truths)
    plain = chain(frames, {0: _anchor(truths[0])})
    cache = FrameFeatureCache(frames)
    for i in range(len(frames)):
        cache[i]
    described.clear()

    # when the pan is chained with those features
    shared = chain(frames, {0: _anchor(truths[0])}, features=cache)

    # then no frame is described again, and every placement is the one chaining alone finds
    assert described == []
    for p, q in zip(plain, shared, strict=True):
        assert p is not None and q is not None
        assert q.source == p.source and q.details == p.details
        assert np.allclose(q.homography, p.homography)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="other frames"):
        chain(frames[:3], {0: _anchor(truths[0])}, features=cache)


def test_a_frame_checked_on_the_map_is_described_once(ground: np.ndarray, described: list[tuple[int, ...]]) -> None:
    # given a pan re-anchored on the map every 3 steps (the check matches frames 3 and 6 on the map)
    truths = _pan(8)
    frames = _frames(ground, truths)
    locator = _CountingLocator(ground[300:900, 300:1200], scales=(1.0,))
    shift = np.array([[1, 0, -300], [0, 1, -300], [0, 0, 1]], float)
    described.clear()

    placed = chain(frames, {0: _anchor(shift @ truths[0])}, locator=locator, reanchor_every=3)

    # then the checks matched frames on the map with the features chaining described: one description a frame
    assert locator.calls == 2 and placed[3] is not None and placed[3].details.get("reanchored")
    assert described == [frames[0].shape] * len(frames)
