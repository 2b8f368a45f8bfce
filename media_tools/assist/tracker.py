"""Single-target tracking over decoded frames: a template tracker with normalised cross-correlation.

Why not OpenCV's CSRT or KCF: the pinned opencv-python-headless 5.0 wheel has neither (they live in
opencv-contrib, whose cv2 replaces the main wheel's, so it cannot sit beside it), and its remaining
trackers other than MIL (Nano, Vit, DaSiamRPN) need network weights, which cannot be downloaded here.
MIL reports no confidence, so it cannot say when the target is lost. A template tracker can: each
frame the patch is searched for with `cv2.matchTemplate` (TM_CCOEFF_NORMED) in a window around a
constant-velocity prediction, the peak refined to sub-pixel by a parabola through its neighbours, and
a frame whose best score stays under `min_score` is marked lost, not guessed. The template follows
slow changes of appearance (a car turning in a roundabout) by blending in the new patch when the match
is confident, and is always matched together with the first one so it cannot drift onto the road.

Frames come in the order they are tracked (forward, or reversed for backward tracking); the caller
decodes them (frames.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

# A patch whose grey levels vary less than this (sensor noise is a few levels) has nothing to follow.
FLAT_STD = 5.0

Progress = Callable[[int], None]
Cancelled = Callable[[], bool]


@dataclass(frozen=True)
class Box:
    """x, y of the centre and the width, height of the target in frame pixels."""

    cx: float
    cy: float
    w: float
    h: float

    @classmethod
    def around(cls, x: float, y: float, *, size: float) -> Box:
        """The box a click makes: `size` pixels square around the point."""
        return cls(float(x), float(y), float(size), float(size))


@dataclass(frozen=True)
class TrackedFrame:
    index: int  # the frame's index in the video
    time_s: float
    x: float | None  # centre in frame pixels; None when lost
    y: float | None
    score: float  # correlation of the best match in [-1, 1]

    @property
    def lost(self) -> bool:
        return self.x is None


@dataclass
class Track:
    frames: list[TrackedFrame] = field(default_factory=list)
    cancelled: bool = False

    @property
    def found(self) -> list[TrackedFrame]:
        return [f for f in self.frames if not f.lost]

    @property
    def share_tracked(self) -> float:
        return len(self.found) / len(self.frames) if self.frames else 0.0


@dataclass(frozen=True)
class TrackerParams:
    # Tuned on the Saro roundabout (bench/assist.py): cars turn a lot between frames at 3 fps, so the
    # template must learn fast; a slow one (0.25) stuck to the road in a third of the tracks.
    min_score: float = 0.55  # under this the frame is lost
    update_score: float = 0.55  # the template learns from matches at least this good
    learn_rate: float = 0.5
    first_weight: float = 0.15  # share of the first template in the score (anti-drift)
    search: float = 1.5  # search radius in box sides around the prediction, plus the expected motion
    lost_growth: float = 1.5  # the window grows by this each lost frame ...
    max_lost: int = 10  # ... and tracking stops after this many lost frames in a row


@dataclass(frozen=True)
class Frame:
    index: int
    time_s: float
    gray: np.ndarray  # 2-D uint8


def _patch(gray: np.ndarray, cx: float, cy: float, w: int, h: int) -> np.ndarray | None:
    x0, y0 = round(cx - w / 2), round(cy - h / 2)
    if x0 < 0 or y0 < 0 or x0 + w > gray.shape[1] or y0 + h > gray.shape[0]:
        return None
    return gray[y0 : y0 + h, x0 : x0 + w].astype(np.float32)


def _subpixel(res: np.ndarray, iy: int, ix: int) -> tuple[float, float]:
    """The peak's offset from (iy, ix) by a parabola through it and its two neighbours on each axis."""

    def one(a: float, b: float, c: float) -> float:
        den = a - 2 * b + c
        return 0.0 if abs(den) < 1e-9 else float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))

    dx = one(res[iy, ix - 1], res[iy, ix], res[iy, ix + 1]) if 0 < ix < res.shape[1] - 1 else 0.0
    dy = one(res[iy - 1, ix], res[iy, ix], res[iy + 1, ix]) if 0 < iy < res.shape[0] - 1 else 0.0
    return dy, dx


class TemplateTracker:
    """Tracks one box through frames given in tracking order (see the module doc)."""

    def __init__(self, first: Frame, box: Box, params: TrackerParams | None = None) -> None:
        self.p = params or TrackerParams()
        # A target at the frame's edge: the box shrinks around its centre to the part inside.
        rows, cols = first.gray.shape
        self.w = min(max(8, round(box.w)), 2 * int(min(box.cx, cols - box.cx)))
        self.h = min(max(8, round(box.h)), 2 * int(min(box.cy, rows - box.cy)))
        patch = None if min(self.w, self.h) < 8 else _patch(first.gray, box.cx, box.cy, self.w, self.h)
        if patch is None:
            raise ValueError("the box must lie inside the frame")
        if float(patch.std()) < FLAT_STD:
            raise ValueError("the box holds no texture to follow (a flat patch); click on the target itself")
        self.first = patch
        self.template = patch.copy()
        self.pos = np.array([box.cx, box.cy], float)
        self.velocity = np.zeros(2)
        self.lost_run = 0

    def step(self, frame: Frame) -> TrackedFrame:
        predicted = self.pos + self.velocity * (1 + self.lost_run)
        radius = self.p.search * max(self.w, self.h) + float(np.hypot(*self.velocity))
        radius *= self.p.lost_growth**self.lost_run
        found = self._search(frame.gray, predicted, radius)
        if found is None:
            self.lost_run += 1
            return TrackedFrame(frame.index, frame.time_s, None, None, -1.0)
        at, score = found
        if score < self.p.min_score:
            self.lost_run += 1
            return TrackedFrame(frame.index, frame.time_s, None, None, score)
        steps = 1 + self.lost_run
        self.velocity = 0.5 * self.velocity + 0.5 * (at - self.pos) / steps
        self.pos = at
        self.lost_run = 0
        if score >= self.p.update_score:
            patch = _patch(frame.gray, at[0], at[1], self.w, self.h)
            if patch is not None:
                self.template = (1 - self.p.learn_rate) * self.template + self.p.learn_rate * patch
        return TrackedFrame(frame.index, frame.time_s, float(at[0]), float(at[1]), score)

    @property
    def gave_up(self) -> bool:
        return self.lost_run > self.p.max_lost

    def _search(self, gray: np.ndarray, centre: np.ndarray, radius: float) -> tuple[np.ndarray, float] | None:
        r = int(np.ceil(radius))
        x0 = max(0, round(centre[0] - self.w / 2) - r)
        y0 = max(0, round(centre[1] - self.h / 2) - r)
        x1 = min(gray.shape[1], round(centre[0] + self.w / 2) + r + 1)
        y1 = min(gray.shape[0], round(centre[1] + self.h / 2) + r + 1)
        if x1 - x0 < self.w + 2 or y1 - y0 < self.h + 2:
            return None  # the prediction left the frame
        window = gray[y0:y1, x0:x1].astype(np.float32)
        res = (1 - self.p.first_weight) * cv2.matchTemplate(window, self.template, cv2.TM_CCOEFF_NORMED)
        res += self.p.first_weight * cv2.matchTemplate(window, self.first, cv2.TM_CCOEFF_NORMED)
        res = np.nan_to_num(res, nan=-1.0)
        iy, ix = np.unravel_index(int(np.argmax(res)), res.shape)
        dy, dx = _subpixel(res, int(iy), int(ix))
        # matchTemplate's (ix, iy) is the top-left corner; the centre is half a template further.
        at = np.array([x0 + ix + dx + (self.w - 1) / 2 + 0.5, y0 + iy + dy + (self.h - 1) / 2 + 0.5])
        return at, float(res[iy, ix])


def track(
    frames: Iterable[Frame],
    box: Box,
    *,
    params: TrackerParams | None = None,
    total: int | None = None,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> Track:
    """Track `box` (drawn on the first frame given) through `frames` in the order given. Lost frames
    have x = y = None; tracking stops after `params.max_lost` lost frames in a row (the rest are not
    reported), when the frames end, or when `cancelled()` turns true (then `Track.cancelled`).
    `progress(percent)` is called as frames are done when `total` (their count) is known.
    Raises ValueError when the box is off the frame or on a flat patch."""
    it = iter(frames)
    first = next(it, None)
    if first is None:
        return Track()
    tracker = TemplateTracker(first, box, params)
    out = Track([TrackedFrame(first.index, first.time_s, box.cx, box.cy, 1.0)])
    done = 1
    for frame in it:
        if cancelled is not None and cancelled():
            out.cancelled = True
            break
        out.frames.append(tracker.step(frame))
        done += 1
        if progress is not None and total:
            progress(min(100, round(100 * done / total)))
        if tracker.gave_up:
            break
    return out
