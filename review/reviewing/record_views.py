"""An item's record: every revision as submitted, every review and adjudication of it and (for
admins) its audit trail and the controls around it (gold, reviewers). Admins also get a list of
all items to open records from. Authors read their own items' records without reviewer names."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.roles import ADMIN, REVIEWER, user_roles
from annotator.access.scopes import in_member_projects, item_in_projects_get, item_record_get
from annotator.exceptions import Conflict
from annotator.models import Item
from annotator.parsers import query_id
from review.audit.selectors import events_for_item
from review.models import ReviewAssignment
from review.reviewing import selectors
from review.reviewing.assignment import assignment_add, assignment_remove
from review.reviewing.gold import gold_mark, gold_unmark
from review.reviewing.modelview import model_view_for
from review.reviewing.reasons import reason_labels
from review.reviewing.views import form_errors

PAGE_SIZE = 50


@login_required
def item_record_page(request: HttpRequest, item_id: int) -> HttpResponse:
    # Admins and the author; not an item the user must still answer blind. 404 otherwise: as if it
    # did not exist.
    item = item_record_get(user=request.user, item_id=item_id, qs=Item.objects.select_related("scene__video", "author"))
    is_admin = ADMIN in user_roles(request.user)
    context = {
        "item": item,
        "rounds": selectors.item_rounds(item=item),
        "labels": reason_labels(),
        "names": is_admin,
        "view": model_view_for(item=item),
        "marks": item.marks.all(),
        # the satellite image its marks are drawn on (one per item; a scene may have several)
        "image": next((m.satellite_image for m in item.marks.select_related("satellite_image")[:1]), None),
    }
    if is_admin:
        context["events"] = events_for_item(item_id=item.id)
        context["is_gold"] = hasattr(item, "gold")
        context["reviewers"] = (
            get_user_model().objects.filter(groups__name=REVIEWER, is_active=True).exclude(id=item.author_id).distinct()
        )
    return render(request, "review/record.html", context)


@login_required
def items_admin_page(request: HttpRequest) -> HttpResponse:
    """Every item, newest first, filterable by state, task and gold; each opens its record."""
    page_require(request, IsAdmin())
    qs = Item.objects.select_related("scene", "author", "gold").order_by("-updated_at", "-id")
    qs = in_member_projects(user=request.user, qs=qs, path="scene__project")
    state, task = request.GET.get("state", ""), request.GET.get("task", "")
    if state in Item.State.values:
        qs = qs.filter(state=state)
    if task in Item.Task.values:
        qs = qs.filter(task=task)
    if request.GET.get("gold") == "1":
        qs = qs.filter(gold__isnull=False)
    page = Paginator(qs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "review/items.html",
        {"page": page, "state": state, "task": task, "states": Item.State.choices, "tasks": Item.Task.choices},
    )


@login_required
@require_POST
def item_gold_page(request: HttpRequest, item_id: int) -> HttpResponse:
    page_require(request, IsAdmin())
    item = item_in_projects_get(user=request.user, item_id=item_id)
    try:
        if request.POST.get("gold") == "1":
            gold_mark(item=item, admin=request.user)
            messages.success(request, f"{item.uid} is gold: it will be mixed into reviewers' queues.")
        else:
            left = gold_unmark(item=item, admin=request.user)
            messages.success(request, f"{item.uid} is no longer gold; it left {left} queue(s).")
    except Conflict as exc:
        messages.error(request, str(exc))
    return redirect("item-record", item_id=item.id)


@login_required
@require_POST
def item_assign_page(request: HttpRequest, item_id: int) -> HttpResponse:
    """Add a reviewer to the item's current round, or take one out before they answered."""
    page_require(request, IsAdmin())
    item = item_in_projects_get(user=request.user, item_id=item_id)
    reviewer_id = request.POST.get("reviewer", "")
    reviewer = get_user_model().objects.filter(id=reviewer_id).first() if query_id(reviewer_id) is not None else None
    try:
        if reviewer is None:
            raise ValidationError({"reviewer": "choose a reviewer"})
        if request.POST.get("action") == "remove":
            row = get_object_or_404(ReviewAssignment, item=item, revision=item.revision, reviewer=reviewer)
            assignment_remove(assignment_id=row.id, actor=request.user)
            messages.success(request, f"{item.uid} left {reviewer.get_username()}'s queue.")
        else:
            assignment_add(item=item, reviewer=reviewer, actor=request.user)
            messages.success(request, f"{item.uid} is in {reviewer.get_username()}'s queue.")
    except (ValidationError, Conflict) as exc:
        messages.error(request, form_errors(exc))
    return redirect("item-record", item_id=item.id)
