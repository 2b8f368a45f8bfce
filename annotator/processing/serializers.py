"""Output shapes of the processing stage."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from annotator.models import Keyframe, MediaJob

from .jobs import job_held


class MediaJobOutputSerializer(serializers.ModelSerializer):
    kind_label = serializers.CharField(source="get_kind_display", read_only=True)
    # Whether an admin may send it again: anything but a job a live worker runs (services.media_job_retry).
    retryable = serializers.SerializerMethodField()
    # The kinds a pending job found still to run when it last tried ([] when it waits for nothing):
    # the job list says "waiting for keyframes" rather than a bare "pending".
    waiting_for = serializers.ListField(source="waiting_kinds", child=serializers.CharField(), read_only=True)

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
            "lease_until",
            "retryable",
            "waiting_for",
        ]

    def get_retryable(self, job: MediaJob) -> bool:
        return not job_held(job)


class KeyframeOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Keyframe
        fields = ["index", "time_s", "url"]

    def get_url(self, obj: Keyframe) -> str:
        return reverse("keyframe-file", args=[obj.video_id, obj.index])
