"""QA templates: each turns marks into a question, options and an answer key for one task. Importing
this package registers one template per task of the catalog (annotator.compiling.catalog)."""

from . import (  # noqa: F401 - each module registers its template
    event_geolocalization,
    occlusion_attribution,
    region_interaction,
    region_reachability,
    relative_direction,
    relative_distance,
    scene_association,
    spatiotemporal_ordering,
    target_visibility,
    temporal_grounding,
    trajectory_matching,
    zone_counting,
)
from .base import CompiledItem, Template, TemplateError, get_template, registered_tasks

__all__ = ["CompiledItem", "Template", "TemplateError", "get_template", "registered_tasks"]
