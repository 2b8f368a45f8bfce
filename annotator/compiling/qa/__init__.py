"""QA templates: each turns marks into a question, options and an answer key for one task."""

from .base import CompiledItem, Template, TemplateError, get_template, registered_tasks
from .target_visibility import TargetVisibility  # noqa: F401 - registers itself

__all__ = ["CompiledItem", "Template", "TemplateError", "get_template", "registered_tasks"]
