"""Output shapes of the processing stage."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from annotator.models import Keyframe, MediaJob


class MediaJobOutputSerializer(serializers.ModelSerializer):
    kind_label = serializers.CharField(source="get_kind_display", read_only=True)

    class Meta:
        model = MediaJob
        fields = [
            "id",
            "kind",
            "kind_label",
            "satellite_image",
            "state",
            "progress",
            "error",
            "detail",
            "attempts",
            "started_at",
            "finished_at",
        ]


class KeyframeOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Keyframe
        fields = ["index", "time_s", "url"]

    def get_url(self, obj: Keyframe) -> str:
        return reverse("keyframe-file", args=[obj.video_id, obj.index])
