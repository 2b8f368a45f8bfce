"""Which items a reviewer must still answer blind: those of their assignments on the item's current
revision with no answer of theirs on that revision yet (gold checks included, since they look the
same). annotator.access.scopes decides what blindness hides; this tells it whom it applies to
(registered in ReviewConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, F, OuterRef, QuerySet

from review.models import Adjudication, Review, ReviewAssignment


def items_awaiting_blind_answer(user: Any) -> QuerySet[Any]:
    """Ids (a values() subquery) of the items `user` is assigned and has not answered yet."""
    answered = Review.objects.filter(reviewer_id=user.pk, item_id=OuterRef("item_id"), revision=OuterRef("revision"))
    return (
        ReviewAssignment.objects.filter(reviewer_id=user.pk, revision=F("item__revision"))
        .exclude(Exists(answered))
        .values("item_id")
    )


def items_assigned_to(user: Any) -> QuerySet[Any]:
    """Ids of the items `user` was ever assigned to review (any revision, answered or not)."""
    return ReviewAssignment.objects.filter(reviewer_id=user.pk).values("item_id")


def items_adjudicated_by(user: Any) -> QuerySet[Any]:
    """Ids of the items `user` decided as an adjudicator."""
    return Adjudication.objects.filter(adjudicator_id=user.pk).values("item_id")
