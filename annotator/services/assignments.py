from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.models import Assignment, Scene
from annotator.roles import ANNOTATOR, has_role


@transaction.atomic
def assignment_create(*, scene: Scene, annotator: Any, assigned_by: Any | None) -> Assignment:
    """Give a scene to an annotator; assigning twice returns the existing assignment."""
    if not has_role(annotator, ANNOTATOR):
        raise ValidationError({"annotator": f"{annotator} is not in the annotator role"})
    assignment, _ = Assignment.objects.get_or_create(
        scene=scene, annotator=annotator, defaults={"assigned_by": assigned_by}
    )
    return assignment
