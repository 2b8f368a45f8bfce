"""Output shape of compiled items."""

from __future__ import annotations

from rest_framework import serializers

from annotator.models import Item


class ItemOutputSerializer(serializers.ModelSerializer):
    uid = serializers.CharField(read_only=True)
    mark_ids = serializers.SerializerMethodField()
    approvals = serializers.IntegerField(read_only=True, default=0)
    rejections = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Item
        fields = [
            "id",
            "uid",
            "scene",
            "task",
            "question",
            "options",
            "answer",
            "answer_format",
            "template",
            "seed",
            "mark_ids",
            "state",
            "approvals",
            "rejections",
            "created_at",
        ]

    def get_mark_ids(self, obj: Item) -> list[int]:
        return sorted(m.id for m in obj.marks.all())
