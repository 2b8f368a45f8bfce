"""Reviewer pages: the queue, and one page per item that shows the model view for the blind
answer, then the key beside the read-only workspace, then the decision."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotator.access.permissions import IsReviewer, page_require
from annotator.exceptions import Conflict
from annotator.parsers import query_id
from review.models import Review, ReviewAssignment
from review.reviewing import selectors
from review.reviewing.modelview import model_view_for
from review.reviewing.reasons import reasons_active
from review.reviewing.services import review_decide, review_opened, review_start


def form_errors(exc: ValidationError | Conflict) -> str:
    """One line a person can act on, from a service's refusal."""
    if isinstance(exc, ValidationError) and hasattr(exc, "error_dict"):
        return "; ".join(f"{k.replace('_', ' ')}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)


def optional_number(raw: str | None, field: str, *, integer: bool = False) -> Any:
    """A form's optional number: None when blank, else the number; ValidationError names the field."""
    raw = (raw or "").strip()
    if not raw:
        return None
    try:
        return int(raw) if integer else float(raw)
    except ValueError:
        raise ValidationError({field: "a number"}) from None


@login_required
def review_queue_page(request: HttpRequest) -> HttpResponse:
    page_require(request, IsReviewer())
    queue = list(selectors.review_queue(reviewer=request.user))
    done = ReviewAssignment.objects.filter(reviewer_id=request.user.pk, done_at__isnull=False).count()
    return render(request, "review/queue.html", {"assignments": queue, "done": done})


@login_required
def review_next_page(request: HttpRequest) -> HttpResponse:
    """The next item in the reviewer's queue (after ?after=<id>), or the queue when it is empty."""
    page_require(request, IsReviewer())
    after = request.GET.get("after", "")
    item = selectors.review_next(reviewer=request.user, after_item_id=query_id(after))
    return redirect("review-item", item_id=item.id) if item else redirect("review-queue")


def _decide(request: HttpRequest, review: Review) -> None:
    review_decide(
        review=review,
        reviewer=request.user,
        decision=request.POST.get("decision", ""),
        reasons=request.POST.getlist("reasons"),
        comment=request.POST.get("comment", ""),
        anchor_mark_id=optional_number(request.POST.get("anchor_mark"), "anchor_mark", integer=True),
        anchor_time_s=optional_number(request.POST.get("anchor_time_s"), "anchor_time_s"),
        decision_seconds=optional_number(request.POST.get("decision_seconds"), "decision_seconds"),
    )


@login_required
def review_item_page(request: HttpRequest, item_id: int) -> HttpResponse:
    page_require(request, IsReviewer())
    assignment = selectors.review_assignment_get(reviewer=request.user, item_id=item_id)
    item = assignment.item
    review = selectors.review_for(reviewer=request.user, item=item)
    error = None
    if request.method == "POST":
        try:
            if review is None:
                review_start(
                    item=item,
                    reviewer=request.user,
                    blind_answer=request.POST.get("blind_answer", ""),
                    answer_seconds=optional_number(request.POST.get("answer_seconds"), "answer_seconds"),
                )
                return redirect("review-item", item_id=item.id)
            _decide(request, review)
            messages.success(request, f"Review of {item.uid} recorded.")
            return redirect(f"{reverse('review-next')}?after={item.id}")
        except (ValidationError, Conflict) as exc:
            error = form_errors(exc)
    elif review is None:
        review_opened(item=item, reviewer=request.user)
    queue = list(selectors.review_queue(reviewer=request.user).values_list("item_id", flat=True))
    return render(
        request,
        "review/item.html",
        {
            "item": item,
            "review": review,
            "view": model_view_for(item=item),
            "reasons": reasons_active(),
            "error": error,
            "decided": review is not None and review.decision != Review.Decision.PENDING,
            # The marks (the decision's anchor choices) only once the reviewer has answered blind.
            "marks": item.marks.all() if review is not None else [],
            "position": queue.index(item.id) + 1 if item.id in queue else None,
            "queue_size": len(queue),
        },
        status=400 if error else 200,
    )
