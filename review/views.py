"""Server-rendered review and release pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render

from annotator.exceptions import Conflict
from annotator.media_views import serve_stored
from annotator.roles import ADMIN, REVIEWER, has_role
from review import selectors
from review.models import Review
from review.reasons import REASONS
from review.services import release_build, review_decide, review_start


def _require(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied("your role does not allow this page")


@login_required
def review_queue_page(request: HttpRequest) -> HttpResponse:
    _require(request, REVIEWER)
    return render(request, "review/queue.html", {"items": selectors.review_queue(reviewer=request.user)})


@login_required
def review_item_page(request: HttpRequest, item_id: int) -> HttpResponse:
    _require(request, REVIEWER)
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
        },
        status=400 if error else 200,
    )


@login_required
def releases_page(request: HttpRequest) -> HttpResponse:
    _require(request, ADMIN)
    error = None
    if request.method == "POST":
        try:
            release = release_build(version=request.POST.get("version", ""), user=request.user)
        except ValidationError as exc:
            error = " ".join(m for msgs in exc.message_dict.values() for m in msgs)
        else:
            messages.success(request, f"Release {release.version} frozen with {release.item_count} items.")
            return redirect("releases")
    from annotator.models import Item

    return render(
        request,
        "review/releases.html",
        {
            "releases": selectors.releases_list(),
            "error": error,
            "approved_count": Item.objects.filter(state=Item.State.APPROVED).count(),
        },
        status=400 if error else 200,
    )


@login_required
def release_file(request: HttpRequest, version: str, filename: str) -> HttpResponseBase:
    _require(request, ADMIN)
    release = selectors.release_get(version=version)
    files = {"items.jsonl": release.items_file, "manifest.json": release.manifest_file}
    if filename not in files:
        raise PermissionDenied("not a file of this release")
    return serve_stored(request, files[filename], download_as=f"{version}-{filename}")
