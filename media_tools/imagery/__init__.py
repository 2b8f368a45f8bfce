"""Drawing on satellite images: what a model is shown of an item (modelview.py); where an image
has data, outside black or transparent borders (valid_area.py)."""

from .modelview import Drawn, Shape, candidates_box, draw_option, draw_view

__all__ = ["Drawn", "Shape", "candidates_box", "draw_option", "draw_view"]
