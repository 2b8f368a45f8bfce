"""Single-target tracking over decoded frames: a template tracker with normalised cross-correlation.

Why not OpenCV's CSRT or KCF: the pinned opencv-python-headless 5.0 wheel has neither (they live in
opencv-contrib, whose cv2 replaces the main wheel's, so it cannot sit beside it), and its remaining
trackers other than MIL (Nano, Vit, DaSiamRPN) need network weights, which cannot be downloaded here.
MIL reports no confidence, so it cannot say when the target is lost. A template tracker can: each
frame the patch is searched for with `cv2.matchTemplate` (TM_CCOEFF_NORMED) in a window around a
constant-velocity prediction, the peak refined to sub-pixel by a parabola through its neighbours, and
a frame whose best score stays under `min_score` is marked lost, not guessed. The template follows
slow changes of appearance (a car turning in a roundabout) by blending in the new patch when the match
is confident, and is always matched together with the first one.

A high score is not enough: on the Saro roundabout a template that matched the car poorly once slid
onto the road and sat there scoring 0.9, and another jumped 18 m onto a look-alike after a lost frame.
So every match also passes two checks, else the frame is lost with the reason (`TrackedFrame.why`):
  - back-check (forward-backward consistency): the patch found in this frame, searched for in the
    last frame the target was found in, must land within `max_fb_px` of where the target was there.
    A template that slides off a moving car onto static road fails it on the frame it slides (40 px
    on Saro; on the target the error is under 2 px in 99 % of frames);
  - jump: the match may not lie farther than `max_jump` box sides (times the root of the frames since
    the last one found) from the constant-velocity prediction (on target: at most 0.75).
When the best match fails a check, the next best peaks (`candidates`, each at least half a box from
the others) are tried in turn: a still look-alike beside the path must not hide the target itself.
A lost frame changes nothing in the tracker (position, velocity, template), so after a slide it keeps
looking for the car with the car's template. Appearance drift against the first template was measured
too and is not a check: cars turning in the roundabout fall to a correlation of -0.2 with their first
patch while tracked correctly, lower than the road the failed track sat on (0.55).
The back-check's error is kept (`fb_px`): the projection adds it to the vertex's uncertainty.

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
    fb_px: float | None = None  # the back-check's error in frame pixels; None where not measured
    why: str = ""  # why the frame is lost: "no match", "back-check" or "jump"; "" when found

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
    max_fb_px: float = 4.0  # a match whose back-check lands farther than this is lost
    max_jump: float = 1.0  # in box sides from the prediction (times sqrt of the frames since found)
    candidates: int = 3  # peaks tried in turn when the best fails a check


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
        self.prev = first.gray  # the last frame the target was found in

    def step(self, frame: Frame) -> TrackedFrame:
        steps = 1 + self.lost_run
        predicted = self.pos + self.velocity * steps
        radius = self.p.search * max(self.w, self.h) + float(np.hypot(*self.velocity))
        radius *= self.p.lost_growth**self.lost_run
        peaks = self._peaks(frame.gray, predicted, radius, n=self.p.candidates)
        if not peaks:
            return self._lose(frame, -1.0, "no match")
        failed: tuple[float, str, float | None] | None = None  # the best peak's failure is the one reported
        for at, score in peaks:
            if score < self.p.min_score:
                break
            fb = None
            if float(np.hypot(*(at - predicted))) > self.p.max_jump * max(self.w, self.h) * np.sqrt(steps):
                why = "jump"
            else:
                fb = self._back_check(frame.gray, at, radius)
                why = "back-check" if fb > self.p.max_fb_px else ""
            if not why:
                return self._found(frame, at, score, fb, steps)
            failed = failed or (score, why, fb)
        return self._lose(frame, *(failed or (peaks[0][1], "no match", None)))

    def _found(self, frame: Frame, at: np.ndarray, score: float, fb: float | None, steps: int) -> TrackedFrame:
        self.velocity = 0.5 * self.velocity + 0.5 * (at - self.pos) / steps
        self.pos = at
        self.prev = frame.gray
        self.lost_run = 0
        if score >= self.p.update_score:
            patch = _patch(frame.gray, at[0], at[1], self.w, self.h)
            if patch is not None:
                self.template = (1 - self.p.learn_rate) * self.template + self.p.learn_rate * patch
        return TrackedFrame(frame.index, frame.time_s, float(at[0]), float(at[1]), score, fb)

    def _lose(self, frame: Frame, score: float, why: str, fb: float | None = None) -> TrackedFrame:
        self.lost_run += 1
        return TrackedFrame(frame.index, frame.time_s, None, None, score, fb, why)

    def _back_check(self, gray: np.ndarray, at: np.ndarray, radius: float) -> float:
        """Pixels between where the target was in the last frame it was found in and where the patch at
        `at` in this frame is found there (module doc); infinite when it cannot be found at all."""
        patch = _patch(gray, at[0], at[1], self.w, self.h)
        found = [] if patch is None else self._peaks(self.prev, self.pos, radius, templates=(patch, patch))
        # Only the best match counts: where a look-alike in the last frame matches as well as the target,
        # the target's own frame fails too (lost, not guessed). Counting any match nearly as good as the
        # best as a pass let a still look-alike beside the path take over the track in the tests.
        return float(np.hypot(*(found[0][0] - self.pos))) if found else float("inf")

    @property
    def gave_up(self) -> bool:
        return self.lost_run > self.p.max_lost

    def _peaks(
        self,
        gray: np.ndarray,
        centre: np.ndarray,
        radius: float,
        *,
        templates: tuple[np.ndarray, np.ndarray] | None = None,
        n: int = 1,
    ) -> list[tuple[np.ndarray, float]]:
        """Up to `n` best matches (centre, score), best first, of the templates (learned and first,
        blended) in a window around `centre`; each at least half a box from the better ones. Empty
        when the window leaves the frame."""
        template, first = templates or (self.template, self.first)
        r = int(np.ceil(radius))
        x0 = max(0, round(centre[0] - self.w / 2) - r)
        y0 = max(0, round(centre[1] - self.h / 2) - r)
        x1 = min(gray.shape[1], round(centre[0] + self.w / 2) + r + 1)
        y1 = min(gray.shape[0], round(centre[1] + self.h / 2) + r + 1)
        if x1 - x0 < self.w + 2 or y1 - y0 < self.h + 2:
            return []  # the prediction left the frame
        window = gray[y0:y1, x0:x1].astype(np.float32)
        res = (1 - self.p.first_weight) * cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
        res += self.p.first_weight * cv2.matchTemplate(window, first, cv2.TM_CCOEFF_NORMED)
        res = np.nan_to_num(res, nan=-1.0)
        free = res.copy()  # the scores with the neighbourhoods of peaks taken suppressed
        out = []
        for _ in range(n):
            iy, ix = (int(v) for v in np.unravel_index(int(np.argmax(free)), free.shape))
            if free[iy, ix] <= -1.0:
                break
            dy, dx = _subpixel(res, iy, ix)
            # matchTemplate's (ix, iy) is the top-left corner; the centre is half a template further.
            at = np.array([x0 + ix + dx + (self.w - 1) / 2 + 0.5, y0 + iy + dy + (self.h - 1) / 2 + 0.5])
            out.append((at, float(res[iy, ix])))
            ry, rx = self.h // 2, self.w // 2
            free[max(0, iy - ry) : iy + ry + 1, max(0, ix - rx) : ix + rx + 1] = -1.0
        return out


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
