"""REST API of CVAA previews: boxes and footprints of a scene's keyframes, checkpoints, training runs."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.access.scopes import scene_get_visible
from annotator.models import CvaaCheckpoint, CvaaTraining, Scene
from annotator.pagination import Pages, paginate
from annotator.parsers import INT64_MAX

from . import selectors, services
from .training import PRESETS


class SceneCvaaApi(APIView):
    class InputSerializer(serializers.Serializer):
        t = serializers.FloatField(min_value=0, help_text="video time in seconds")
        image = serializers.IntegerField(
            required=False, min_value=1, max_value=INT64_MAX, help_text="one of the scene's satellite images"
        )

    @extend_schema(
        parameters=[OpenApiParameter("t", float, required=True), OpenApiParameter("image", int)], responses=dict
    )
    def get(self, request: Request, scene_id: int) -> Response:
        """The CVAA boxes of the keyframe nearest `t` (best first, with scores and whether the score
        reaches the display threshold) and that keyframe's placement on the image (`?image=ID`, the first
        by default): its footprint quad from the most trusted source, labelled with the source, its
        confidence, its expected corner error in pixels and metres, and whether it is shown."""
        scene = scene_get_visible(user=request.user, scene_id=scene_id, qs=Scene.objects.select_related("video"))
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        return Response(
            selectors.cvaa_at(scene=scene, t=data.validated_data["t"], image_id=data.validated_data.get("image"))
        )


class SceneCvaaPreviewsApi(APIView):
    class PreviewsInputSerializer(serializers.Serializer):
        image = serializers.IntegerField(
            required=False, min_value=1, max_value=INT64_MAX, help_text="one of the scene's satellite images"
        )

    @extend_schema(parameters=[OpenApiParameter("image", int)], responses=dict)
    def get(self, request: Request, scene_id: int) -> Response:
        """Every keyframe's boxes and footprint at once on one of the scene's satellite images (`?image=ID`;
        the first by default): what the workspace draws while scrubbing."""
        scene = scene_get_visible(user=request.user, scene_id=scene_id, qs=Scene.objects.select_related("video"))
        data = self.PreviewsInputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        return Response(selectors.cvaa_previews_for_scene(scene=scene, image_id=data.validated_data.get("image")))


class CvaaCheckpointOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = CvaaCheckpoint
        fields = ["id", "original_name", "sha256", "size_bytes", "origin", "active", "config", "metrics", "created_at"]


class CvaaCheckpointListApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class CvaaCheckpointInputSerializer(serializers.Serializer):
        file = serializers.FileField(help_text="a CVAA checkpoint (.pt) as train_cvaa writes it")
        activate = serializers.BooleanField(default=True)

    pagination_class = Pages

    @extend_schema(responses=CvaaCheckpointOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, CvaaCheckpoint.objects.all(), CvaaCheckpointOutputSerializer)

    @extend_schema(
        request=CvaaCheckpointInputSerializer,
        responses={201: CvaaCheckpointOutputSerializer, 200: CvaaCheckpointOutputSerializer},
    )
    def post(self, request: Request) -> Response:
        """Upload a checkpoint (201; 200 with the one stored when the same file is there already); a file
        that is not a valid CVAA checkpoint gets 400 on `file` with why."""
        data = self.CvaaCheckpointInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        checkpoint, created = services.checkpoint_upload(created_by=request.user, **data.validated_data)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(CvaaCheckpointOutputSerializer(checkpoint).data, status=code)


class CvaaCheckpointActivateApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses=CvaaCheckpointOutputSerializer)
    def post(self, request: Request, checkpoint_id: int) -> Response:
        get_object_or_404(CvaaCheckpoint, id=checkpoint_id)
        checkpoint = services.checkpoint_make_active(checkpoint_id=checkpoint_id)
        return Response(CvaaCheckpointOutputSerializer(checkpoint).data)


class CvaaTrainingOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = CvaaTraining
        fields = ["id", "steps", "seed", "options", "state", "progress", "error", "detail", "checkpoint"]
        fields += ["created_at", "started_at", "finished_at"]


class CvaaTrainingListApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class CvaaTrainingInputSerializer(serializers.Serializer):
        steps = serializers.IntegerField(min_value=1, max_value=1_000_000, default=2000)
        # CvaaTraining.seed is a 32-bit column.
        seed = serializers.IntegerField(default=0, min_value=-(2**31), max_value=2**31 - 1)
        preset = serializers.ChoiceField(choices=sorted(PRESETS), default="small")
        device = serializers.ChoiceField(choices=["", "cpu", "cuda"], default="", help_text="empty: the worker's")
        activate = serializers.BooleanField(default=True)

    pagination_class = Pages

    @extend_schema(responses=CvaaTrainingOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, CvaaTraining.objects.all(), CvaaTrainingOutputSerializer)

    @extend_schema(request=CvaaTrainingInputSerializer, responses={201: CvaaTrainingOutputSerializer})
    def post(self, request: Request) -> Response:
        """Queue a training run on the `gpu` queue; its state and reason show in GET."""
        data = self.CvaaTrainingInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values: dict[str, Any] = dict(data.validated_data)
        run = services.training_start(created_by=request.user, **values)
        return Response(CvaaTrainingOutputSerializer(run).data, status=status.HTTP_201_CREATED)
