"""Review pages: the reviewer's queue and the blind-then-decide item page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotator.access.permissions import IsReviewer, page_require
from annotator.exceptions import Conflict
from review.models import Review
from review.reviewing import selectors
from review.reviewing.reasons import REASONS
from review.reviewing.services import review_decide, review_start


@login_required
def review_queue_page(request: HttpRequest) -> HttpResponse:
    page_require(request, IsReviewer())
    return render(request, "review/queue.html", {"items": selectors.review_queue(reviewer=request.user)})


@login_required
def review_item_page(request: HttpRequest, item_id: int) -> HttpResponse:
    page_require(request, IsReviewer())
    item = selectors.review_item_get(reviewer=request.user, item_id=item_id)
    review = selectors.review_for(reviewer=request.user, item=item)
    error = None
    if request.method == "POST":
        try:
            if review is None:
                review = review_start(
                    item=item, reviewer=request.user, blind_answer=request.POST.get("blind_answer", "")
                )
                return redirect("review-item", item_id=item.id)
            anchor = request.POST.get("anchor_mark", "")
            if anchor and not anchor.isdigit():
                raise ValidationError({"anchor_mark": "choose one of the item's marks"})
            review_decide(
                review=review,
                reviewer=request.user,
                decision=request.POST.get("decision", ""),
                reasons=request.POST.getlist("reasons"),
                comment=request.POST.get("comment", ""),
                anchor_mark_id=int(anchor) if anchor else None,
            )
            messages.success(request, f"Review of {item.uid} recorded.")
            return redirect("review-queue")
        except ValidationError as exc:
            error = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        except Conflict as exc:
            error = str(exc)
    return render(
        request,
        "review/item.html",
        {
            "item": item,
            "review": review,
            "reasons": REASONS,
            "error": error,
            "decided": review is not None and review.decision != Review.Decision.PENDING,
            "marks": item.marks.all(),
            # What a model is given for the item: the reviewer answers from the same files.
            "model_view": getattr(item, "model_view", None),
        },
        status=400 if error else 200,
    )
