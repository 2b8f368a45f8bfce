"""Carrying a placement through a video: frame-to-frame homographies chained from placed frames (anchors),
re-anchored on the map when matching allows, with drift flagged where the two disagree.

A chained frame's homography is the anchor's times the product of the verified frame-to-frame steps
(the ground is taken as a plane, as for every placement here). Its `uncertainty_px` adds, in quadrature,
the anchor's and each step's corner error (geometry.corner_uncertainty) mapped to satellite pixels, so it
grows with the number of steps. Its `confidence` is that of the weakest link: the lowest of the anchor's
and each step's verification confidence (the same logistic in inliers and inlier ratio as map
matching), halved where drift was flagged. Chained placements are right as often as their weakest
match is (bench/README.md, reliability rows), so a product, which decays with every step, would
understate them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .footprints import frame_corners, quad_area
from .geometry import GeometricLocator, degenerate_reason, matching_confidence, project, verify
from .matching import FrameFeatureCache, FrameFeatures, describe_frame, mutual_matches
from .placement import CHAINING, MATCHING, Placement

# Where matching and chaining disagree by more than this share of the footprint's size (or 3 sigma of
# their combined uncertainty, if larger), the chain has drifted or the match is wrong: flagged.
DRIFT_FRACTION = 0.05
REANCHOR_CONFIDENCE = 0.5
STEP_INLIERS = 15  # a frame-to-frame step needs more inliers than a map match: its errors compound
# A match to the reference frame with fewer inliers than this hands over to the previous frame.
REFERENCE_INLIERS = 100


def _step(fa: FrameFeatures, fb: FrameFeatures) -> tuple[np.ndarray, dict] | None:
    a, b = fa.features, fb.features
    pairs = mutual_matches(b.descriptors, a.descriptors, ratio=0.85)
    if not len(pairs):
        return None
    # Consecutive frames differ little: allow more stretch than a map match (the view may tilt), but
    # the tolerance is tight, 2 px at the described scale.
    shrink = min(1.0, fa.side / max(fa.size))
    found, _ = verify(
        b.points[pairs[:, 0]], a.points[pairs[:, 1]], fb.size, threshold_px=2.0 / shrink, min_inliers=STEP_INLIERS
    )
    if found is None:
        return None
    numbers = found.numbers()
    numbers["uncertainty_px"] = round(max(found.uncertainty_px, found.reproj_px), 3)
    numbers["confidence"] = round(matching_confidence(found.inliers, found.inlier_ratio), 4)
    return found.homography / found.homography[2, 2], numbers


def frame_to_frame(a_rgb: np.ndarray, b_rgb: np.ndarray) -> tuple[np.ndarray, dict] | None:
    """The verified homography mapping frame b's pixels to frame a's, with its numbers (inliers,
    inlier_ratio, reproj_px, uncertainty_px in a's pixels, confidence), or None when none holds."""
    return _step(describe_frame(a_rgb), describe_frame(b_rgb))


def _homography_of(placement: Placement) -> np.ndarray:
    if placement.homography is not None:
        return np.asarray(placement.homography, float)
    # A footprint without a homography (a telemetry quad, a window): the one homography it implies.
    src = frame_corners(*placement.frame_size).astype(np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(placement.quad, np.float32)).astype(float)


def _local_scale(homography: np.ndarray, size: tuple[int, int]) -> float:
    """Satellite pixels per frame pixel at the frame's centre (square root of the Jacobian's determinant)."""
    quad = project(homography, frame_corners(*size))
    return math.sqrt(max(quad_area(quad), 1e-9) / (size[0] * size[1]))


def _disagreement(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float), axis=1)))


@dataclass(frozen=True)
class _Ref:
    """The frame the walk currently matches against, with its placement's numbers."""

    index: int
    homography: np.ndarray
    confidence: float
    uncertainty: float
    steps: int


class _Chainer:
    """The state of one chaining run over a video (features described once per frame, in `features`)."""

    def __init__(
        self,
        frames: Sequence[np.ndarray],
        locator: GeometricLocator | None,
        reanchor_every: int,
        matches: Mapping[int, Placement | None],
        features: FrameFeatureCache,
    ) -> None:
        self.frames, self.locator, self.reanchor_every = frames, locator, max(1, reanchor_every)
        self.matches, self.features = matches, features

    def run(
        self, start: int, anchor: Placement, targets: list[int], out: list[Placement | None], *, check: bool = True
    ) -> None:
        """Walk from frame `start` (placed by `anchor`) through `targets` in order. Each frame is matched to
        the current reference frame (at first the anchor) rather than to its neighbour, so while the view
        overlaps the reference the error does not accumulate; when that match weakens, the previous frame
        becomes the reference (one more step in the chain)."""
        ref = _Ref(start, _homography_of(anchor), anchor.confidence, anchor.uncertainty_px, 0)
        origin, since_check, previous = start, 0, start
        run_placed: list[int] = []
        last_inliers = math.inf  # of the last match against the current reference
        for index in targets:
            # Already weak against the reference: the next frame will be weaker, so hand over at once
            # (one match per step instead of a failed one and a retry).
            weak = last_inliers < 1.5 * REFERENCE_INLIERS
            step = None if weak and previous != ref.index else self._step_from(ref.index, index)
            if (step is None or step[1]["inliers"] < REFERENCE_INLIERS) and previous != ref.index:
                ref = self._reference(previous, out)
                step = self._step_from(ref.index, index)
            if step is None:
                return  # the chain breaks here; frames past it stay unplaced rather than invented
            last_inliers = step[1]["inliers"]
            h_step, numbers = step
            size_a, size_b = self.features[ref.index].size, self.features[index].size
            homography = ref.homography @ h_step
            homography = homography / homography[2, 2]
            if degenerate_reason(homography, size_b, frame_corners(*size_b)):
                return
            since_check, previous = since_check + 1, index
            scale = _local_scale(ref.homography, size_a)
            uncertainty = math.hypot(ref.uncertainty, numbers["uncertainty_px"] * scale)
            confidence = min(ref.confidence, numbers["confidence"])
            quad = project(homography, frame_corners(*size_b))
            details: dict[str, Any] = {
                "from": origin,
                "steps": ref.steps + 1,
                "reference": ref.index,
                "drift": False,
                **numbers,
                **({} if check else {"rechained_after_drift": True}),
            }
            placed = Placement(CHAINING, quad, size_b, confidence, uncertainty, homography, details)
            if check and self.locator is not None and since_check >= self.reanchor_every:
                since_check = 0
                matched = self._check(index, placed, run_placed, out)
                if matched is not None and matched.homography is not None:
                    # re-anchored (drifted or not): the walk continues from the map's answer
                    placed, origin = matched, index
                    h_map = np.asarray(matched.homography, float)
                    ref = _Ref(index, h_map, matched.confidence, matched.uncertainty_px, 0)
                    last_inliers = math.inf
                    if matched.details.get("drift"):
                        # The frames chained since the last check came from a drifted reference: walk
                        # back over them from the map's answer; any the walk cannot reach keep their flag.
                        out[index] = matched
                        recent = run_placed[-self.reanchor_every :]
                        redo = [j for j in reversed(recent) if (p := out[j]) is not None and p.source == CHAINING]
                        self.run(index, matched, redo, out, check=False)
            out[index] = placed
            run_placed.append(index)

    @staticmethod
    def _reference(index: int, out: list[Placement | None]) -> _Ref:
        placed = out[index]
        assert placed is not None and placed.homography is not None
        steps = int(placed.details.get("steps", 0))
        return _Ref(index, np.asarray(placed.homography, float), placed.confidence, placed.uncertainty_px, steps)

    def _step_from(self, reference: int, index: int) -> tuple[np.ndarray, dict] | None:
        return _step(self.features[reference], self.features[index])

    def _check(
        self, index: int, chained: Placement, run_placed: list[int], out: list[Placement | None]
    ) -> Placement | None:
        """Match frame `index` on the map near its chained footprint. Agreeing and confident: the matched
        placement replaces the chained one (a re-anchor). Confident but disagreeing: drift; the map's
        answer wins (it does not accumulate error) and the chained frames since the last check are
        flagged. Returns None when the map gives no confident answer."""
        assert self.locator is not None
        # A frame the caller matched already (or found no match for) is not matched again.
        if index in self.matches:
            matched = self.matches[index]
        else:
            own = self.features[index]
            shared = own.described_as(self.locator.frame_side, self.locator.frame_features)
            matched = self.locator.locate(self.frames[index], near=chained.quad, features=own if shared else None)
        if matched is None or matched.confidence < REANCHOR_CONFIDENCE:
            return None
        gap = _disagreement(chained.quad, matched.quad)
        size = math.sqrt(quad_area(chained.quad))
        tolerance = max(3 * math.hypot(chained.uncertainty_px, matched.uncertainty_px), DRIFT_FRACTION * size)
        drifted = gap > tolerance
        details = {
            **matched.details,
            "reanchored": True,
            "chained_disagreement_px": round(gap, 2),
            "drift": drifted,
        }
        answer = Placement(
            MATCHING,
            matched.quad,
            matched.frame_size,
            matched.confidence,
            matched.uncertainty_px,
            matched.homography,
            details,
        )
        if drifted:
            for j in run_placed[-self.reanchor_every :]:
                p = out[j]
                if p is not None and p.source == CHAINING:
                    out[j] = Placement(
                        p.source,
                        p.quad,
                        p.frame_size,
                        p.confidence * 0.5,
                        max(p.uncertainty_px, gap),
                        p.homography,
                        {**p.details, "drift": True, "drift_px": round(gap, 2)},
                    )
        return answer


def chain(
    frames: Sequence[np.ndarray],
    anchors: Mapping[int, Placement],
    *,
    locator: GeometricLocator | None = None,
    reanchor_every: int = 5,
    matches: Mapping[int, Placement | None] | None = None,
    features: FrameFeatureCache | None = None,
) -> list[Placement | None]:
    """One placement (or None) per frame. Anchors are kept as given; every other frame is reached from its nearest
    anchor (the earlier one on a tie) by chaining frame-to-frame homographies forward or backward (source
    "chaining", details: from = the index of the placed frame it was chained from, the anchor or the last re-
    anchored frame; steps = links in the chain; reference = the frame it was matched to; drift; that match's
    numbers). With a `locator`, every `reanchor_every` steps the frame is matched on the map near its chained
    footprint: a confident, consistent match re-anchors the walk (source "matching", details["reanchored"]); a
    confident, inconsistent one flags drift (details["drift"] True and "chained_disagreement_px" on the matched
    frame), re-anchors there too, and the frames chained since the previous check are walked again backward from it
    (details["rechained_after_drift"]; one the walk cannot reach keeps its drifted placement with details["drift"]
    True and its confidence halved). `matches`: what the caller's own matching with this locator found per frame
    (None where it found nothing); a check takes it instead of matching the frame again, so each frame is matched
    at most once. `features`: a FrameFeatureCache over the same `frames` that the caller's matching filled
    (GeometricLocator.locate(features=...)), so no frame is described twice; without one, each frame is
    described here once. A frame no chain reaches is None."""
    n = len(frames)
    out: list[Placement | None] = [None] * n
    keys = sorted(i for i in anchors if 0 <= i < n)
    for i in keys:
        out[i] = anchors[i]
    if not keys:
        return out
    if features is None:
        features = FrameFeatureCache(frames)
    elif len(features) != n:
        raise ValueError("features describe other frames")
    chainer = _Chainer(frames, locator, reanchor_every, matches or {}, features)
    for k, i in enumerate(keys):
        before = keys[k - 1] if k > 0 else None
        after = keys[k + 1] if k + 1 < len(keys) else None
        # Frames strictly nearer this anchor than its neighbours (ties to the earlier anchor).
        back_stop = -1 if before is None else (i + before) // 2
        fwd_stop = n if after is None else (i + after) // 2 + 1
        chainer.run(i, anchors[i], list(range(i + 1, fwd_stop)), out)
        chainer.run(i, anchors[i], list(range(i - 1, back_stop, -1)), out)
    return out
