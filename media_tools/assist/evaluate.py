"""How far projected tracks land from the truth on the satellite image, in metres.

Each truth path (truth.py) of at least `min_frames` frames is tracked as an annotator would: from a box
drawn where the target is fully in view (the first frame whose box area reaches `full_share` of the
path's median area: a car still entering the masked frame shows only its part, and its label's centre
is not the car's), backward to the path's first frame and forward to its last. Each tracked frame's
centre is projected through the keyframe placements (projection.py) and compared with the label's centre
projected through that frame's own control-point homography (`truth_homographies`), so the error counts
the tracker and the placement between keyframes together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .projection import INTERPOLATE, PlacedKeyframe, project_track
from .tracker import Box, Frame, TrackedFrame, TrackerParams, track
from .truth import TruthPath

# A track fails where any of its frames lands farther than this from the truth: half a car's length,
# more than a person checking the draft would let pass.
FAILED_M = 2.0


@dataclass
class Report:
    errors_m: list[float] = field(default_factory=list)
    frames_truth: int = 0
    frames_tracked: int = 0  # tracked and projected, with a truth box to compare with
    paths: int = 0
    seconds_tracking: float = 0.0
    uncertainty_m: list[float] = field(default_factory=list)
    paths_failed: int = 0  # tracks with a frame farther than FAILED_M from the truth

    @property
    def share_tracked(self) -> float:
        return self.frames_tracked / self.frames_truth if self.frames_truth else 0.0

    def summary(self) -> dict[str, float]:
        e = np.asarray(self.errors_m, float)
        u = np.asarray(self.uncertainty_m, float)
        return {
            "paths": self.paths,
            "frames_truth": self.frames_truth,
            "frames_tracked": self.frames_tracked,
            "share_tracked": round(self.share_tracked, 4),
            "mean_m": round(float(e.mean()), 3) if len(e) else float("nan"),
            "p50_m": round(float(np.percentile(e, 50)), 3) if len(e) else float("nan"),
            "p90_m": round(float(np.percentile(e, 90)), 3) if len(e) else float("nan"),
            "within_1m": round(float((e < 1.0).mean()), 4) if len(e) else float("nan"),
            "mean_uncertainty_m": round(float(u.mean()), 3) if len(u) else float("nan"),
            "paths_failed": self.paths_failed,
            "seconds_per_path": round(self.seconds_tracking / self.paths, 4) if self.paths else float("nan"),
        }


def start_frame(path: TruthPath, *, full_share: float = 0.8) -> int:
    """The first frame where the target is fully in view (module doc)."""
    areas = {i: _area(b) for i, b in path.boxes.items()}
    median = float(np.median(list(areas.values())))
    return next(i for i in path.frames if areas[i] >= full_share * median)


def _area(corners: np.ndarray) -> float:
    x, y = corners[:, 0], corners[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def drawn_box(corners: np.ndarray, *, tightness: float = 0.8) -> Box:
    """The box an annotator draws on the target: its axis-aligned extent, a little inside the outline
    (a box drawn around a car takes in road at its corners)."""
    c = corners.mean(axis=0)
    w, h = corners.max(axis=0) - corners.min(axis=0)
    return Box(float(c[0]), float(c[1]), float(w * tightness), float(h * tightness))


def track_path(frames: Sequence[Frame], path: TruthPath, params: TrackerParams | None = None) -> list[TrackedFrame]:
    """The path tracked from its start frame both ways, in frame order; `frames[i]` is frame i."""
    s = start_frame(path)
    box = drawn_box(path.boxes[s])
    first, last = path.frames[0], path.frames[-1]
    forward = track(frames[s : last + 1], box, params=params).frames
    backward = track(frames[first : s + 1][::-1], box, params=params).frames if s > first else []
    return [*reversed(backward[1:]), *forward]


def evaluate_paths(
    frames: Sequence[Frame],
    paths: Sequence[TruthPath],
    *,
    truth_homographies: Mapping[int, np.ndarray],
    keyframes: Sequence[PlacedKeyframe],
    metres_per_px: float,
    mode: str = INTERPOLATE,
    min_frames: int = 5,
    params: TrackerParams | None = None,
    clock: Callable[[], float] | None = None,
    max_gap_s: float = 5.0,
) -> Report:
    """The module doc's measurement over every path of at least `min_frames` frames."""
    report = Report()
    size = (frames[0].gray.shape[1], frames[0].gray.shape[0])
    for path in paths:
        if len(path.boxes) < min_frames:
            continue
        report.paths += 1
        report.frames_truth += len(path.boxes)
        t0 = clock() if clock else 0.0
        tracked = track_path(frames, path, params)
        report.seconds_tracking += (clock() - t0) if clock else 0.0
        vertices = project_track(
            tracked, keyframes, video_size=size, metres_per_px=metres_per_px, mode=mode, max_gap_s=max_gap_s
        )
        worst = 0.0
        for f, v in zip(tracked, vertices, strict=True):
            if v.x is None or v.y is None or f.index not in path.boxes or f.index not in truth_homographies:
                continue
            truth = _apply(truth_homographies[f.index], path.centre(f.index))
            report.errors_m.append(float(np.hypot(v.x - truth[0], v.y - truth[1])) * metres_per_px)
            worst = max(worst, report.errors_m[-1])
            report.frames_tracked += 1
            if v.uncertainty_m is not None:
                report.uncertainty_m.append(v.uncertainty_m)
        report.paths_failed += worst > FAILED_M
    return report


def _apply(h: np.ndarray, point: np.ndarray) -> np.ndarray:
    q = np.asarray(h, float) @ np.array([point[0], point[1], 1.0])
    return q[:2] / q[2]


def load_labelled_clip(
    video: Path, labels: Path, *, label_name: Callable[[int], str], gate_px: float = 35.0
) -> tuple[list[Frame], list[TruthPath]]:
    """Every decoded frame of `video` and the truth paths linked from its label files (frame i's labels
    in `labels / label_name(i)`; a frame without a file has no boxes)."""
    from .frames import decode
    from .truth import link, read_obb

    frames = list(decode(video, start_s=0.0, end_s=float("inf")))
    if not frames:
        raise ValueError(f"{video.name}: no frame decoded")
    h, w = frames[0].gray.shape
    boxes = [
        read_obb(labels / label_name(i), width=w, height=h)
        if (labels / label_name(i)).exists()
        else np.zeros((0, 4, 2))
        for i in range(len(frames))
    ]
    return frames, link(boxes, gate_px=gate_px)


def table(
    frames: Sequence[Frame],
    paths: Sequence[TruthPath],
    *,
    truth_homographies: Mapping[int, np.ndarray],
    rows: Mapping[str, tuple[Sequence[PlacedKeyframe], str]],
    metres_per_px: float,
    clock: Callable[[], float] | None = None,
    max_gap_s: float = 5.0,
) -> dict[str, dict[str, float]]:
    """evaluate_paths once per row: name -> (keyframe placements, projection mode). The tracks are the
    same in every row (the tracker is deterministic); only what they are projected through changes."""
    return {
        name: {
            "mode": mode,  # type: ignore[dict-item]
            **evaluate_paths(
                frames,
                paths,
                truth_homographies=truth_homographies,
                keyframes=keyframes,
                metres_per_px=metres_per_px,
                mode=mode,
                clock=clock,
                max_gap_s=max_gap_s,
            ).summary(),
        }
        for name, (keyframes, mode) in rows.items()
    }
