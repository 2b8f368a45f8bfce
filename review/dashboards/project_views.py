"""A project's dashboard page (admins of the project): the plan against what is compiled, the
stages, the people, what is blocked and a map of the scenes."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.scopes import project_get_visible
from review.dashboards import charts, project


@login_required
def project_dashboard(request: HttpRequest, project_id: int) -> HttpResponse:
    page_require(request, IsAdmin())
    p = project_get_visible(user=request.user, project_id=project_id)
    per_task = project.items_per_task(p)
    context = {
        "project": p,
        "per_task": per_task,
        "mix_chart": charts.target_chart(per_task, title="Items per task against the target mix"),
        "planned": sum(t for _, _, t in per_task),
        "compiled": sum(c for _, c, _ in per_task),
        "stages": project.items_per_stage(p),
        "annotators": project.annotators(p),
        "reviewers": project.reviewers(p),
        "blocked": project.blocked(p),
        "points": project.scene_points(p),
    }
    return render(request, "review/project_dashboard.html", context)
