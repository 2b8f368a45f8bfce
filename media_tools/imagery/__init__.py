"""Drawing on satellite images: what a model is shown of an item (modelview.py)."""

from .modelview import Drawn, Shape, draw_option, draw_view

__all__ = ["Drawn", "Shape", "draw_option", "draw_view"]
