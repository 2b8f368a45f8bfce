"""REST API of assisted trajectories: start tracking (one target, or a label's targets in a clip),
read a job's progress, cancel it, confirm the draft trajectory it left. Corrections of the draft
(moving or dropping vertices) are ordinary mark edits (PATCH /api/marks/<id>/)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAnnotator, IsAssignedToScene, IsAuthor
from annotator.intake.selectors import scene_get_bare
from annotator.marking import selectors as mark_selectors
from annotator.marking.serializers import MarkOutputSerializer
from annotator.models import TrackingJob
from annotator.parsers import INT64_MAX

from .selectors import tracking_job_get, tracking_job_of_mark
from .services import mark_confirm, tracking_cancel, tracking_start, tracking_start_batch


class TrackingJobOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    scene = serializers.IntegerField(source="scene_id")
    satellite_image = serializers.IntegerField(source="satellite_image_id")
    label = serializers.CharField()  # type: ignore[assignment]
    time_s = serializers.FloatField()
    box = serializers.ListField(child=serializers.FloatField())
    direction = serializers.CharField()
    duration_s = serializers.FloatField()
    batch_key = serializers.UUIDField(allow_null=True)
    from_mark = serializers.IntegerField(source="from_mark_id", allow_null=True)
    state = serializers.CharField()
    progress = serializers.IntegerField()
    cancel_requested = serializers.BooleanField()
    error = serializers.CharField()
    detail = serializers.CharField()
    # Per tracked frame: t, x, y (image px, null when lost or unplaced), source, uncertainty_m, score.
    vertices = serializers.SerializerMethodField()
    mark = serializers.IntegerField(source="mark_id", allow_null=True)

    def get_vertices(self, obj: TrackingJob) -> list[dict[str, Any]]:
        return list((obj.result or {}).get("vertices", []))


def _scene(request: Request, view: APIView, scene_id: int) -> Any:
    """The scene, checked before the body is read: someone who may not track there learns nothing."""
    scene = scene_get_bare(user=request.user, scene_id=scene_id)
    view.check_object_permissions(request, scene)
    return scene


def _image(scene: Any, image_id: int) -> Any:
    image = scene.satellite_images.filter(id=image_id).first()
    if image is None:
        raise serializers.ValidationError({"satellite_image": ["this image does not belong to the scene"]})
    return image


class SceneTracksApi(APIView):
    """POST: track the target at a point or in a box of the video at a time (202 with the job)."""

    permission_classes = [IsAuthenticated, IsAnnotator, IsAssignedToScene]

    class TrackStartInputSerializer(serializers.Serializer):
        satellite_image = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
        label = serializers.CharField(max_length=64)  # type: ignore[assignment]
        time_s = serializers.FloatField(min_value=0)
        point = serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2, required=False)
        box = serializers.ListField(child=serializers.FloatField(), min_length=4, max_length=4, required=False)
        direction = serializers.ChoiceField(choices=TrackingJob.Direction.choices, default="forward")
        duration_s = serializers.FloatField(default=10.0)

    @extend_schema(request=TrackStartInputSerializer, responses={202: TrackingJobOutputSerializer})
    def post(self, request: Request, scene_id: int) -> Response:
        scene = _scene(request, self, scene_id)
        data = self.TrackStartInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        image = _image(scene, v.pop("satellite_image"))
        job = tracking_start(scene=scene, author=request.user, satellite_image=image, **v)
        return Response(TrackingJobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class SceneTracksBatchApi(APIView):
    """POST: track every target of a label in a clip (the author's point and ellipse marks of that label
    in it), one job and one draft trajectory each (202 with the jobs)."""

    permission_classes = [IsAuthenticated, IsAnnotator, IsAssignedToScene]

    class TrackBatchInputSerializer(serializers.Serializer):
        satellite_image = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
        label = serializers.CharField(max_length=64)  # type: ignore[assignment]
        start_s = serializers.FloatField(min_value=0)
        end_s = serializers.FloatField(min_value=0)

    @extend_schema(request=TrackBatchInputSerializer, responses={202: TrackingJobOutputSerializer(many=True)})
    def post(self, request: Request, scene_id: int) -> Response:
        scene = _scene(request, self, scene_id)
        data = self.TrackBatchInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        image = _image(scene, v.pop("satellite_image"))
        jobs = tracking_start_batch(scene=scene, author=request.user, satellite_image=image, **v)
        return Response(TrackingJobOutputSerializer(jobs, many=True).data, status=status.HTTP_202_ACCEPTED)


class TrackApi(APIView):
    """GET: a job's state, progress and (when done) its projected vertices; its author only."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(responses=TrackingJobOutputSerializer)
    def get(self, request: Request, track_id: int) -> Response:
        return Response(TrackingJobOutputSerializer(tracking_job_get(user=request.user, job_id=track_id)).data)


class MarkTrackApi(APIView):
    """GET: the tracking job that drew a draft trajectory (its per-frame sources and uncertainty, which
    the workspace draws again after a reload); its author only."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(responses=TrackingJobOutputSerializer)
    def get(self, request: Request, mark_id: int) -> Response:
        return Response(TrackingJobOutputSerializer(tracking_job_of_mark(user=request.user, mark_id=mark_id)).data)


class TrackCancelApi(APIView):
    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(request=None, responses=TrackingJobOutputSerializer)
    def post(self, request: Request, track_id: int) -> Response:
        job = tracking_cancel(job=tracking_job_get(user=request.user, job_id=track_id))
        return Response(TrackingJobOutputSerializer(job).data)


class MarkConfirmApi(APIView):
    """POST {version}: the author confirms a draft trajectory; it is then an ordinary mark."""

    permission_classes = [IsAuthenticated, IsAuthor, IsAssignedToScene]

    class MarkConfirmInputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1, max_value=INT64_MAX)

    @extend_schema(request=MarkConfirmInputSerializer, responses=MarkOutputSerializer)
    def post(self, request: Request, mark_id: int) -> Response:
        mark = mark_selectors.mark_for_edit(user=request.user, mark_id=mark_id)
        if mark is None:
            seen = mark_selectors.mark_get(user=request.user, mark_id=mark_id)  # 404 when not visible
            self.check_object_permissions(request, seen)  # 403 when not theirs
            raise Http404("no such mark")
        data = self.MarkConfirmInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        mark = mark_confirm(mark=mark, version=data.validated_data["version"])
        return Response(MarkOutputSerializer(mark, context={"viewer": request.user}).data)
