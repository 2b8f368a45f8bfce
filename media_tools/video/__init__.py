"""Video operations beyond processing an upload: cutting a segment for an item (segment.py)."""

from .segment import Segment, cut_segment, keyframe_times

__all__ = ["Segment", "cut_segment", "keyframe_times"]
