"""Server-rendered pages of the annotator side. Every view checks role and scope."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotator import selectors
from annotator.forms import SceneUploadForm
from annotator.labels import label_set
from annotator.models import Item
from annotator.qa import registered_tasks
from annotator.roles import ADMIN, ANNOTATOR, REVIEWER, has_role, user_roles
from annotator.services import scene_import
from annotator.uploads import scene_spec_from_uploads
from review.reasons import REASONS


def _require(request: HttpRequest, *roles: str) -> None:
    if not user_roles(request.user) & set(roles):
        raise PermissionDenied("your role does not allow this page")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = request.user
    context: dict[str, Any] = {
        "scenes": selectors.scenes_for_user(user=user) if (has_role(user, ANNOTATOR) or has_role(user, ADMIN)) else [],
        "items": selectors.items_for_user(user=user).order_by("-id")[:50]
        if (has_role(user, ANNOTATOR) or has_role(user, ADMIN))
        else [],
    }
    if has_role(user, REVIEWER):
        from review.selectors import review_queue

        context["queue_count"] = review_queue(reviewer=user).count()
    return render(request, "annotator/home.html", context)


@login_required
def scene_detail(request: HttpRequest, scene_id: int) -> HttpResponse:
    scene = selectors.scene_get(user=request.user, scene_id=scene_id)
    return render(
        request,
        "annotator/scene_detail.html",
        {
            "scene": scene,
            "keyframes": selectors.keyframes_for_scene(scene=scene),
            "jobs": selectors.jobs_for_scene(scene=scene),
            "items": selectors.items_for_user(user=request.user, scene_id=scene.id)
            if not has_role(request.user, REVIEWER) or has_role(request.user, ADMIN)
            else [],
            "can_annotate": selectors.scene_is_assigned(user=request.user, scene=scene),
        },
    )


@login_required
def workspace(request: HttpRequest, scene_id: int) -> HttpResponse:
    scene = selectors.scene_get(user=request.user, scene_id=scene_id)
    editable = has_role(request.user, ANNOTATOR) and selectors.scene_is_assigned(user=request.user, scene=scene)
    feedback = []
    if editable:
        rejected = selectors.items_for_user(user=request.user, scene_id=scene.id).filter(state=Item.State.REJECTED)
        from review.selectors import feedback_for_items

        feedback = feedback_for_items(items=list(rejected))
    return render(
        request,
        "annotator/workspace.html",
        {
            "scene": scene,
            "image": scene.satellite_images.order_by("id").first(),
            "editable": editable,
            "labels": label_set(),
            "tasks": registered_tasks(),
            "feedback": feedback,
            "reasons": REASONS,
        },
    )


@login_required
def scene_upload(request: HttpRequest) -> HttpResponse:
    _require(request, ADMIN)
    form = SceneUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        v = dict(form.cleaned_data)
        v["annotators"] = [u.username for u in v["annotators"]]
        v["satellite_from_keyframe_s"] = 0.0 if v.pop("use_keyframe") else None
        v["orthophoto_from_keyframe_s"] = 0.0 if v.pop("make_orthophoto") else None
        try:
            with scene_spec_from_uploads(v) as spec:
                scene = scene_import(spec=spec, created_by=request.user)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(request, f"Scene {scene.name} created; processing has started.")
            return redirect("scene-detail", scene_id=scene.id)
    return render(request, "annotator/scene_upload.html", {"form": form}, status=400 if form.errors else 200)
