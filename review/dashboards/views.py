"""The home page: each role's own overview (scenes and items, the review queue)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access.roles import ADMIN, ANNOTATOR, REVIEWER, user_roles
from annotator.compiling.selectors import items_for_user
from annotator.intake.selectors import scenes_for_user
from review.reviewing.selectors import review_queue


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user, roles = request.user, user_roles(request.user)
    context: dict[str, Any] = {"scenes": [], "items": []}
    if roles & {ANNOTATOR, ADMIN}:
        context["scenes"] = scenes_for_user(user=user)
        context["items"] = items_for_user(user=user).order_by("-id")[:50]
    if REVIEWER in roles:
        context["queue_count"] = review_queue(reviewer=user).count()
    return render(request, "annotator/home.html", context)
