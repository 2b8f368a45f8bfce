"""Adjudicator pages: the items reviewers did not settle, and one page per item with the model
view, the key, every review of the round, the read-only workspace and the final decision."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotator.exceptions import Conflict
from review.reviewing import selectors
from review.reviewing.adjudication import item_adjudicate
from review.reviewing.modelview import model_view_for
from review.reviewing.policy import may_adjudicate
from review.reviewing.reasons import reason_labels, reasons_active
from review.reviewing.views import form_errors, optional_number


def _require_adjudicator(request: HttpRequest) -> None:
    # The policy decides whether admins adjudicate, so this is not a role check alone.
    if not may_adjudicate(user=request.user):
        raise PermissionDenied("only adjudicators can open adjudication")


@login_required
def adjudication_queue_page(request: HttpRequest) -> HttpResponse:
    _require_adjudicator(request)
    return render(request, "review/adjudication_queue.html", {"items": selectors.adjudication_queue(user=request.user)})


@login_required
def adjudication_item_page(request: HttpRequest, item_id: int) -> HttpResponse:
    _require_adjudicator(request)
    item = selectors.adjudication_item_get(user=request.user, item_id=item_id)
    error = None
    if request.method == "POST":
        try:
            item_adjudicate(
                item=item,
                adjudicator=request.user,
                decision=request.POST.get("decision", ""),
                reason=request.POST.get("reason", ""),
                reasons=request.POST.getlist("reasons"),
                anchor_mark_id=optional_number(request.POST.get("anchor_mark"), "anchor_mark", integer=True),
                anchor_time_s=optional_number(request.POST.get("anchor_time_s"), "anchor_time_s"),
            )
            messages.success(request, f"{item.uid} decided: {request.POST.get('decision')}.")
            return redirect("adjudication-queue")
        except (ValidationError, Conflict) as exc:
            error = form_errors(exc)
    return render(
        request,
        "review/adjudicate.html",
        {
            "item": item,
            "view": model_view_for(item=item),
            "reviews": selectors.reviews_of_revision(item=item),
            "reasons": reasons_active(),
            "labels": reason_labels(),
            "marks": item.marks.all(),
            "error": error,
        },
        status=400 if error else 200,
    )
