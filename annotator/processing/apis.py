"""REST API of processing: job state, retries, keyframes, telemetry."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.access.scopes import scene_get_visible
from annotator.models import TelemetryTrack
from annotator.pagination import Pages, paginate
from annotator.processing import selectors
from annotator.processing.serializers import KeyframeOutputSerializer, MediaJobOutputSerializer
from annotator.processing.services import media_job_retry


class SceneJobsApi(APIView):
    pagination_class = Pages

    @extend_schema(responses=MediaJobOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = scene_get_visible(user=request.user, scene_id=scene_id)
        return paginate(request, selectors.scene_jobs(scene=scene), MediaJobOutputSerializer)


class MediaJobRetryApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses=MediaJobOutputSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        get_object_or_404(selectors.jobs_visible(user=request.user), id=job_id)
        job = media_job_retry(job_id=job_id)
        return Response(MediaJobOutputSerializer(job).data)


class SceneKeyframesApi(APIView):
    pagination_class = Pages

    @extend_schema(responses=KeyframeOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = scene_get_visible(user=request.user, scene_id=scene_id)
        return paginate(request, selectors.keyframes_for_scene(scene=scene), KeyframeOutputSerializer)


class SceneTelemetryApi(APIView):
    class OutputSerializer(serializers.Serializer):
        source = serializers.CharField()  # type: ignore[assignment]
        sample_count = serializers.IntegerField()
        samples = serializers.SerializerMethodField()

        def get_samples(self, track: TelemetryTrack) -> list[dict[str, Any]]:
            fields = ("time_s", "lat", "lon", "height_m", "alt_m", "heading_deg", "speed_mps")
            return [{f: getattr(s, f) for f in fields} for s in track.samples.all()]

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, scene_id: int) -> Response:
        """The drone's track over video time (404 when the scene has none)."""
        scene = scene_get_visible(user=request.user, scene_id=scene_id)
        track = selectors.telemetry_for_scene(scene=scene)
        if track is None:
            raise Http404("this scene has no telemetry")
        return Response(self.OutputSerializer(track).data)
