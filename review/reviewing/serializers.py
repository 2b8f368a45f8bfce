"""Output shapes of the review API. Nothing a reviewer sees before answering carries the key, the
item's state or whether it is a gold check."""

from __future__ import annotations

from rest_framework import serializers

from annotator.models import Item
from annotator.outputs import FieldsBuiltOnce
from review.models import Adjudication, ItemEvent, RejectionReason, Review


class BlindItemSerializer(FieldsBuiltOnce, serializers.ModelSerializer):
    """An item as a reviewer first sees it: the question and options of its model view, and
    nothing that names or locates the key (no key, no marks or mark ids, no provenance).

    The output shapes of the review steps build their fields once per process (annotator.outputs):
    introspected from the model for every answer, they were 6 % of the review steps' samples
    under the 8-client review load (bench/README.md)."""

    uid = serializers.CharField(read_only=True)
    scene_name = serializers.CharField(source="scene.name", read_only=True)

    class Meta:
        model = Item
        fields = ["id", "uid", "scene", "scene_name", "task", "question", "options", "answer_format"]


class AnsweredItemSerializer(BlindItemSerializer):
    """The item once this reviewer has answered it blind: now with the marks it is about (shown
    highlighted in the read-only workspace)."""

    mark_ids = serializers.SerializerMethodField()

    class Meta(BlindItemSerializer.Meta):
        fields = [*BlindItemSerializer.Meta.fields, "mark_ids"]

    def get_mark_ids(self, obj: Item) -> list[int]:
        return sorted(m.id for m in obj.marks.all())


class ReviewOutputSerializer(FieldsBuiltOnce, serializers.ModelSerializer):
    """A reviewer's own review, after the blind answer: now with the key."""

    answer_key = serializers.CharField(source="item.answer", read_only=True)

    class Meta:
        model = Review
        fields = [
            "id",
            "item",
            "revision",
            "reviewer",
            "blind_answer",
            "blind_score",
            "blind_correct",
            "answer_key",
            "answer_seconds",
            "decision",
            "reasons",
            "comment",
            "anchor_mark",
            "anchor_time_s",
            "decision_seconds",
            "created_at",
            "decided_at",
        ]


class AdminReviewSerializer(ReviewOutputSerializer):
    """Every field, for admins: who reviewed, and whether it was a gold check."""

    reviewer_name = serializers.CharField(source="reviewer.username", read_only=True)
    item_uid = serializers.CharField(source="item.uid", read_only=True)
    task = serializers.CharField(source="item.task", read_only=True)

    class Meta(ReviewOutputSerializer.Meta):
        fields = [*ReviewOutputSerializer.Meta.fields, "reviewer_name", "item_uid", "task", "gold"]


class VoteSerializer(serializers.ModelSerializer):
    """A review as the adjudicator reads it."""

    reviewer_name = serializers.CharField(source="reviewer.username", read_only=True)

    class Meta:
        model = Review
        fields = ["reviewer_name", "blind_answer", "blind_correct", "decision", "reasons", "comment", "anchor_mark"]


class AdjudicationItemSerializer(serializers.ModelSerializer):
    uid = serializers.CharField(read_only=True)
    scene_name = serializers.CharField(source="scene.name", read_only=True)
    reviews = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = ["id", "uid", "scene", "scene_name", "task", "question", "options", "answer", "revision", "reviews"]

    def get_reviews(self, obj: Item) -> list[dict]:
        rows = [r for r in obj.reviews.all() if r.revision == obj.revision and not r.gold]
        return VoteSerializer(rows, many=True).data  # type: ignore[return-value]


class AdjudicationOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Adjudication
        fields = [
            "id",
            "item",
            "revision",
            "decision",
            "reason",
            "reasons",
            "anchor_mark",
            "anchor_time_s",
            "created_at",
        ]


class ReasonSerializer(serializers.ModelSerializer):
    class Meta:
        model = RejectionReason
        fields = ["code", "label", "description", "group"]


class ItemEventSerializer(serializers.ModelSerializer):
    actor_name = serializers.SerializerMethodField()

    class Meta:
        model = ItemEvent
        fields = ["id", "revision", "action", "from_state", "to_state", "actor", "actor_name", "reason", "at"]

    def get_actor_name(self, obj: ItemEvent) -> str:
        return obj.actor.username if obj.actor else "system"
