"""manage.py assign_reviews: give every item in review the reviewers the policy asks for.

Submitting assigns reviewers; this tops up items submitted before there were enough reviewers
(or before assignments existed, after migrating), and after the policy asks for more."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from annotator.models import Item
from review.reviewing.assignment import assignments_fill


class Command(BaseCommand):
    help = "Assign reviewers to items in review that have fewer than the review policy asks for."

    def handle(self, *args: Any, **opts: Any) -> None:
        added = 0
        for item_id in Item.objects.filter(state=Item.State.IN_REVIEW).order_by("id").values_list("id", flat=True):
            with transaction.atomic():
                item = Item.objects.select_for_update().get(id=item_id)
                if item.state == Item.State.IN_REVIEW:
                    added += len(assignments_fill(item=item))
        self.stdout.write(f"{added} assignment(s) added (as many reviewers per item as its project's policy asks).")
