"""The annotation workspace page: video and satellite map on one time cursor."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_sameorigin

from annotator.access.scopes import may_annotate
from annotator.compiling.qa import registered_tasks
from annotator.intake.selectors import scene_get
from annotator.marking.labels import label_set


@xframe_options_sameorigin  # the review pages embed it read-only (?embed=1) beside the decision
@login_required
def workspace(request: HttpRequest, scene_id: int) -> HttpResponse:
    """Editable for an annotator assigned to the scene, read-only for everyone else who may see
    it (reviewers, admins). Reviewer feedback on rejected items comes from the review app's
    template tag, so this stage does not depend on review."""
    scene = scene_get(user=request.user, scene_id=scene_id)
    return render(
        request,
        "annotator/workspace.html",
        {
            "scene": scene,
            "image": scene.satellite_images.order_by("id").first(),
            "editable": may_annotate(user=request.user, scene=scene),
            "labels": label_set(),
            "tasks": registered_tasks(),
        },
    )
