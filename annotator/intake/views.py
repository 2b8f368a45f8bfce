"""Pages of scene intake: a scene's overview (media, jobs, items) and the admin upload form."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotator.access.permissions import IsAdmin, IsAnnotator, page_require
from annotator.access.scopes import may_annotate
from annotator.compiling.selectors import items_for_user
from annotator.intake.forms import SceneUploadForm
from annotator.intake.selectors import scene_get
from annotator.intake.services import scene_import
from annotator.intake.uploads import scene_spec_from_uploads
from annotator.parsers import query_id
from annotator.processing.selectors import jobs_for_scene, keyframes_for_scene, placement_notes


@login_required
def scene_detail(request: HttpRequest, scene_id: int) -> HttpResponse:
    scene = scene_get(user=request.user, scene_id=scene_id)
    # Reviewers reach items through their queue, where the key stays hidden until they answer.
    sees_items = (IsAdmin | IsAnnotator)().has_permission(request, None)  # type: ignore[arg-type]
    return render(
        request,
        "annotator/scene_detail.html",
        {
            "scene": scene,
            "keyframes": keyframes_for_scene(scene=scene),
            "placement_notes": placement_notes(scene=scene),
            "jobs": jobs_for_scene(scene=scene),
            "items": items_for_user(user=request.user, scene_id=scene.id) if sees_items else [],
            "can_annotate": may_annotate(user=request.user, scene=scene),
        },
    )


@login_required
def scene_upload(request: HttpRequest) -> HttpResponse:
    """The upload form. The page's script posts it in the background asking for JSON, so a refused
    field keeps the chosen files (a page reload would drop them) and the upload shows progress."""
    page_require(request, IsAdmin())
    wants_json = "application/json" in request.headers.get("Accept", "")
    initial = {"project": request.GET.get("project")} if query_id(request.GET.get("project", "")) else {}
    form = SceneUploadForm(request.POST or None, request.FILES or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        v = dict(form.cleaned_data)
        v["annotators"] = [u.username for u in v["annotators"]]
        v["satellite_from_keyframe_s"] = 0.0 if v.pop("use_keyframe") else None
        v["orthophoto_from_keyframe_s"] = 0.0 if v.pop("make_orthophoto") else None
        project = v.pop("project")
        try:
            with scene_spec_from_uploads(v) as spec:
                scene = scene_import(spec=spec, created_by=request.user, project=project)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(request, f"Scene {scene.name} created; processing has started.")
            if wants_json:
                return JsonResponse({"redirect": reverse("scene-detail", args=[scene.id])}, status=201)
            return redirect("scene-detail", scene_id=scene.id)
    if wants_json and request.method == "POST":
        return JsonResponse({"errors": form.errors.get_json_data()}, status=400)
    return render(request, "annotator/scene_upload.html", {"form": form}, status=400 if form.errors else 200)
