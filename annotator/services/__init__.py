"""Every write of the annotator app. Keyword-only, typed, atomic."""

from .assignments import assignment_create
from .items import item_compile, item_submit
from .jobs import media_job_reset, media_job_retry, media_job_run
from .marks import mark_create, mark_delete, mark_update
from .scenes import SceneSpec, scene_import

__all__ = [
    "SceneSpec",
    "assignment_create",
    "item_compile",
    "item_submit",
    "mark_create",
    "mark_delete",
    "mark_update",
    "media_job_reset",
    "media_job_retry",
    "media_job_run",
    "scene_import",
]
