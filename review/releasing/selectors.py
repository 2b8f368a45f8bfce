"""Reads of releases (admins only; the pages and APIs check the role)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from review.models import Release


def releases_list() -> QuerySet[Release]:
    return Release.objects.select_related("created_by").order_by("-id")


def release_get(*, version: str) -> Release:
    release = Release.objects.filter(version=version).first()
    if release is None:
        raise Http404(f"no release {version}")
    return release
