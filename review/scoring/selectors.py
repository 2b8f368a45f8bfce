"""Reads of scoring: a release's leaderboard (admins only; pages and APIs check the role)."""

from __future__ import annotations

from django.db.models import QuerySet

from review.models import Release, Submission


def leaderboard(*, release: Release) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(release=release).select_related("release", "submitted_by").order_by("-overall", "id")
    )
