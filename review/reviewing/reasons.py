"""The rejection taxonomy (review.RejectionReason, edited by admins in the Django admin): what
reviewers pick from and how codes read in words."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from review.models import RejectionReason


def reasons_active() -> QuerySet[RejectionReason]:
    return RejectionReason.objects.filter(active=True).order_by("position", "id")


def reason_labels() -> dict[str, str]:
    """Every code, retired ones included (old reviews still name them), to its label."""
    return dict(RejectionReason.objects.values_list("code", "label"))


def reasons_clean(codes: Iterable[str], *, field: str = "reasons") -> list[str]:
    """Codes in taxonomy order, each once; raises ValidationError naming unknown or retired ones."""
    wanted = list(dict.fromkeys(str(c) for c in codes))
    if not wanted:  # an approval: no taxonomy to read
        return []
    known = {r.code: r.position for r in reasons_active()}
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise ValidationError({field: f"unknown reason(s): {', '.join(unknown)}"})
    return sorted(wanted, key=lambda c: known[c])
