"""The home page (each role's overview), the admins' review dashboard, and each reviewer's and
annotator's own progress and statistics."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.roles import ADJUDICATOR, ADMIN, ANNOTATOR, REVIEWER, user_roles
from annotator.access.scopes import member_project_ids
from annotator.compiling.selectors import items_for_user
from annotator.intake.selectors import scenes_for_user
from review.dashboards import measures, stats
from review.dashboards.charts import bar_chart, interval_chart
from review.reviewing.policy import may_adjudicate, policy_get
from review.reviewing.selectors import adjudication_queue, review_queue

# Items of the adjudication queue listed on the home page (the queue page lists them all).
HOME_ADJUDICATION_ROWS = 20


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user, roles = request.user, user_roles(request.user)
    context: dict[str, Any] = {"scenes": [], "items": []}
    if roles & {ANNOTATOR, ADMIN}:
        context["scenes"] = scenes_for_user(user=user)
        items = items_for_user(user=user)
        if ADMIN not in roles:
            # An annotator's list names only items on scenes still assigned to them: the others'
            # links would open a scene that now answers 404 (the items stay on their records).
            items = items.filter(scene__in=context["scenes"].values("id"))
        context["items"] = items.order_by("-id")[:50]
    if REVIEWER in roles:
        context["queue_count"] = review_queue(reviewer=user).count()
    if roles & {ADJUDICATOR, ADMIN} and may_adjudicate(user=user):
        queue = adjudication_queue(user=user)
        context["adjudication_count"] = queue.count()
        # The adjudicator's home is their queue: the oldest items first, each opening its page.
        context["adjudication_items"] = list(queue.prefetch_related(None)[:HOME_ADJUDICATION_ROWS])
    return render(request, "annotator/home.html", context)


@login_required
def review_dashboard(request: HttpRequest) -> HttpResponse:
    """Queues, throughput and pace per reviewer, rejection rates (per task, annotator, reason),
    agreement, the human baseline and gold accuracy, with charts."""
    page_require(request, IsAdmin())
    policy = policy_get()
    # the admin's projects only (every project for superusers)
    projects = member_project_ids(user=request.user)
    queues = stats.queue_sizes(policy=policy, projects=projects)
    throughput = stats.reviewer_throughput(projects=projects)
    rates = stats.rejection_rates(projects=projects)
    reasons = stats.rejection_reasons(projects=projects)
    agreement = measures.agreement_report(projects=projects)
    baseline = measures.baseline_report(projects=projects)
    gold = stats.gold_accuracy(policy=policy, projects=projects)
    charts = {
        "queues": bar_chart([(r["username"], r["open"]) for r in queues["reviewers"]], title="Open items per reviewer"),
        "per_day": bar_chart(stats.reviews_per_day(projects=projects), title="Reviews decided per day"),
        "pace": bar_chart([(r.username, r.median_answer_s) for r in throughput], unit="s", title="Median answer time"),
        "task_rates": bar_chart(
            [(r["name"], r["rate"]) for r in rates["task"]], unit="%", scale_max=1, title="Rejection rate per task"
        ),
        "reasons": bar_chart(
            [(r["label"], r["share"]) for r in reasons["rows"]], unit="%", scale_max=1, title="Rejections per reason"
        ),
        "gold": bar_chart([(g.username, g.accuracy) for g in gold], unit="%", scale_max=1, title="Gold accuracy"),
        "baseline": interval_chart(
            [(r["name"], r["value"], r["low"], r["high"]) for r in baseline["tasks"]], title="Human baseline per task"
        ),
    }
    return render(
        request,
        "review/dashboard.html",
        {
            "policy": policy,
            "queues": queues,
            "throughput": throughput,
            "rates": rates,
            "reasons": reasons,
            "agreement": agreement,
            "baseline": baseline,
            "gold": gold,
            "charts": charts,
        },
    )


@login_required
def my_stats(request: HttpRequest) -> HttpResponse:
    """The signed-in reviewer's and/or annotator's own progress and figures."""
    roles = user_roles(request.user)
    if not roles & {REVIEWER, ANNOTATOR}:
        raise PermissionDenied("this page shows a reviewer's or an annotator's own work")
    context: dict[str, Any] = {}
    if REVIEWER in roles:
        context["reviewer"] = stats.reviewer_summary(reviewer=request.user, policy=policy_get())
    if ANNOTATOR in roles:
        author = stats.author_summary(author=request.user)
        context["author"] = author
        context["author_chart"] = bar_chart(
            [(r["name"], r["rate"]) for r in author["rates"]], unit="%", scale_max=1, title="Your rejection rate"
        )
    return render(request, "review/my_stats.html", context)
