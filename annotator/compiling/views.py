"""Admin pages of compiling: the audit of the items (can a model score without looking?) and the
annotators' effort per task."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access.permissions import IsAdmin, page_require
from annotator.compiling import selectors
from annotator.compiling.audit import ALPHA, audit, effort_by_task
from annotator.models import Item

# The paper's team spent about 4 minutes per sample; the page shows each task against it.
PAPER_MINUTES_PER_ITEM = 4.0
# Audited unless the page is asked for other states: what can still become part of a release.
DEFAULT_STATES: list[str] = [Item.State.DRAFT, Item.State.IN_REVIEW, Item.State.APPROVED]


def _labels() -> dict[str, str]:
    return {str(k): str(v) for k, v in Item.Task.choices}


@login_required
def audit_page(request: HttpRequest) -> HttpResponse:
    """Per task: the audit's figures (annotator.compiling.audit), with flags where a figure is beyond
    chance. `?state=approved` narrows."""
    page_require(request, IsAdmin())
    states = [s for s in request.GET.getlist("state") if s in Item.State.values] or DEFAULT_STATES
    reports = audit(selectors.audit_rows(states=states, user=request.user))
    labels = _labels()
    rows = sorted(reports, key=lambda r: list(labels).index(r.task))
    context = {
        "reports": [(labels[r.task], r) for r in rows],
        "states": states,
        "all_states": Item.State.values,
        "alpha": ALPHA,
    }
    return render(request, "annotator/audit.html", context)


@login_required
def effort_page(request: HttpRequest) -> HttpResponse:
    """Median minutes of active work per item, per task, against the paper's figure."""
    page_require(request, IsAdmin())
    labels = _labels()
    rows = [(labels.get(e.task, e.task), e) for e in effort_by_task(selectors.effort_pairs(user=request.user))]
    return render(request, "annotator/effort.html", {"rows": rows, "paper_minutes": PAPER_MINUTES_PER_ITEM})
