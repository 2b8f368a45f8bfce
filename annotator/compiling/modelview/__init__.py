"""The model view of an item: exactly what a model is given, rendered by a job after compiling (so
compiling stays quick) and stored through Django's storage.

- plan.py: what a view shows (from the item's provenance alone) and drawing it;
- render.py: the job: render one view, or drain every pending one;
- claims.py: the ModelView table as the queue (claims, leases, views of vanished workers);
- cache.py: the satellite images a worker keeps decoded between items."""

from .plan import (
    PREVIEW_OPTION_SIDE,
    PREVIEW_SIDE,
    Plan,
    draw_images,
    image_name,
    lettered_crop,
    model_view_draw,
    relettered,
    view_plan,
)
from .render import model_view_files_delete, model_view_render, model_views_drain, stored_names

__all__ = [
    "PREVIEW_OPTION_SIDE",
    "PREVIEW_SIDE",
    "Plan",
    "draw_images",
    "image_name",
    "lettered_crop",
    "model_view_draw",
    "model_view_files_delete",
    "model_view_render",
    "model_views_drain",
    "relettered",
    "stored_names",
    "view_plan",
]
