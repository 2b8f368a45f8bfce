"""REST API of the annotator app: parse -> service/selector -> serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator import selectors
from annotator.exceptions import Conflict
from annotator.models import Item, Mark, MediaJob, TelemetryTrack
from annotator.permissions import IsAdmin, IsAnnotator
from annotator.roles import ADMIN, has_role
from annotator.serializers import (
    ItemOutputSerializer,
    KeyframeOutputSerializer,
    MarkOutputSerializer,
    MediaJobOutputSerializer,
    SceneOutputSerializer,
    mark_feature,
)
from annotator.services import (
    assignment_create,
    item_compile,
    item_submit,
    mark_create,
    mark_delete,
    mark_update,
    media_job_retry,
    scene_import,
)
from annotator.uploads import scene_spec_from_uploads
from media_tools.geo import GeoReference


class SceneListApi(APIView):
    class SceneImportInputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        video = serializers.FileField()
        satellite = serializers.ListField(child=serializers.FileField(), required=False, default=list)
        satellite_from_keyframe_s = serializers.FloatField(required=False, allow_null=True, min_value=0)
        orthophoto_from_keyframe_s = serializers.FloatField(required=False, allow_null=True, min_value=0)
        corners = serializers.JSONField(required=False, allow_null=True)
        gcps = serializers.JSONField(required=False, allow_null=True, help_text="[[x, y, lat, lon], ...]")
        gcps_file = serializers.FileField(required=False, help_text="CSV with x, y, lat, lon columns")
        world_file = serializers.FileField(required=False)
        world_file_crs = serializers.CharField(required=False, allow_blank=True, max_length=64)
        telemetry = serializers.FileField(required=False, help_text="drone track: CSV or DJI SRT")
        description = serializers.CharField(required=False, allow_blank=True, default="")
        annotators = serializers.ListField(child=serializers.CharField(), required=False, default=list)

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated(), IsAdmin()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=SceneOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        scenes = selectors.scenes_for_user(user=request.user)
        return Response(SceneOutputSerializer(scenes, many=True).data)

    @extend_schema(request=SceneImportInputSerializer, responses=SceneOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.SceneImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        values = dict(v)
        if v.get("gcps_file"):
            values["gcps"] = values.pop("gcps_file")
        with scene_spec_from_uploads(values) as spec:
            scene = scene_import(spec=spec, created_by=request.user)
        return Response(
            SceneOutputSerializer(selectors.scene_get(user=request.user, scene_id=scene.id)).data,
            status=status.HTTP_201_CREATED,
        )


class SceneDetailApi(APIView):
    @extend_schema(responses=SceneOutputSerializer)
    def get(self, request: Request, scene_id: int) -> Response:
        return Response(SceneOutputSerializer(selectors.scene_get(user=request.user, scene_id=scene_id)).data)


class SceneJobsApi(APIView):
    @extend_schema(responses=MediaJobOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        return Response(MediaJobOutputSerializer(selectors.jobs_for_scene(scene=scene), many=True).data)


class MediaJobRetryApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses=MediaJobOutputSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        get_object_or_404(MediaJob, id=job_id)
        job = media_job_retry(job_id=job_id)
        return Response(MediaJobOutputSerializer(job).data)


class SceneKeyframesApi(APIView):
    @extend_schema(responses=KeyframeOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        return Response(KeyframeOutputSerializer(selectors.keyframes_for_scene(scene=scene), many=True).data)


class SceneTelemetryApi(APIView):
    class OutputSerializer(serializers.Serializer):
        source = serializers.CharField()  # type: ignore[assignment]
        sample_count = serializers.IntegerField()
        samples = serializers.SerializerMethodField()

        def get_samples(self, track: TelemetryTrack) -> list[dict[str, Any]]:
            fields = ("time_s", "lat", "lon", "alt_m", "heading_deg", "speed_mps")
            return [{f: getattr(s, f) for f in fields} for s in track.samples.all()]

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, scene_id: int) -> Response:
        """The drone's track over video time (404 when the scene has none)."""
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        track = selectors.telemetry_for_scene(scene=scene)
        if track is None:
            raise Http404("this scene has no telemetry")
        return Response(self.OutputSerializer(track).data)


class SatelliteConvertApi(APIView):
    """Image pixels (x right, y down, from the top-left corner) <-> WGS84, with the exact transform."""

    class InputSerializer(serializers.Serializer):
        x = serializers.FloatField(required=False)
        y = serializers.FloatField(required=False)
        lat = serializers.FloatField(required=False, min_value=-90, max_value=90)
        lon = serializers.FloatField(required=False, min_value=-180, max_value=180)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if {"x", "y"} <= set(attrs) or {"lat", "lon"} <= set(attrs):
                return attrs
            raise serializers.ValidationError({"x": "give x and y (pixels) or lat and lon"})

    @extend_schema(parameters=[InputSerializer], responses={200: dict})
    def get(self, request: Request, image_id: int) -> Response:
        image = selectors.satellite_image_get(user=request.user, image_id=image_id)
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        if not image.georef:
            raise Conflict(f"{image.original_name} is not georeferenced")
        ref = GeoReference.from_dict(image.georef)
        v = data.validated_data
        if "x" in v:
            lon, lat = ref.pixel_to_lonlat(v["x"], v["y"])
            return Response({"x": v["x"], "y": v["y"], "lat": float(lat), "lon": float(lon)})
        x, y = ref.lonlat_to_pixel(v["lon"], v["lat"])
        return Response({"x": float(x), "y": float(y), "lat": v["lat"], "lon": v["lon"]})


class MarkInputSerializer(serializers.Serializer):
    satellite_image = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Mark.Kind.choices)
    geometry = serializers.JSONField()
    label = serializers.CharField(max_length=64)  # type: ignore[assignment]
    time_start = serializers.FloatField(min_value=0)
    time_end = serializers.FloatField(required=False, allow_null=True, default=None)
    vertex_times = serializers.ListField(child=serializers.FloatField(), required=False, default=list)
    facts = serializers.DictField(required=False, default=dict)


def feature_to_input(body: Any) -> Any:
    """Accept a mark as a GeoJSON-like Feature too: pixel geometry plus properties."""
    if isinstance(body, dict) and body.get("type") == "Feature":
        return {**(body.get("properties") or {}), "geometry": body.get("geometry")}
    return body


class SceneMarksApi(APIView):
    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated(), IsAnnotator()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=MarkOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        marks = selectors.marks_for_scene(user=request.user, scene=scene)
        data = MarkOutputSerializer(marks, many=True, context={"viewer": request.user}).data
        if request.query_params.get("as") == "features":
            return Response({"type": "FeatureCollection", "features": [mark_feature(m) for m in data]})
        return Response(data)

    @extend_schema(request=MarkInputSerializer, responses=MarkOutputSerializer)
    def post(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        if not selectors.scene_is_assigned(user=request.user, scene=scene):
            self.permission_denied(request, message="this scene is not assigned to you")
        data = MarkInputSerializer(data=feature_to_input(request.data))
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        image = scene.satellite_images.filter(id=v.pop("satellite_image")).first()
        if image is None:
            return Response(
                {"satellite_image": ["this image does not belong to the scene"]}, status=status.HTTP_400_BAD_REQUEST
            )
        mark = mark_create(scene=scene, author=request.user, satellite_image=image, **v)
        return Response(MarkOutputSerializer(mark).data, status=status.HTTP_201_CREATED)


class MarkDetailApi(APIView):
    class MarkUpdateInputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1)
        geometry = serializers.JSONField(required=False)
        label = serializers.CharField(max_length=64, required=False)  # type: ignore[assignment]
        time_start = serializers.FloatField(min_value=0, required=False)
        time_end = serializers.FloatField(required=False, allow_null=True)
        vertex_times = serializers.ListField(child=serializers.FloatField(), required=False)
        facts = serializers.DictField(required=False)

    class MarkDeleteInputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1)

    @extend_schema(responses=MarkOutputSerializer)
    def get(self, request: Request, mark_id: int) -> Response:
        mark = selectors.mark_get(user=request.user, mark_id=mark_id)
        return Response(MarkOutputSerializer(mark, context={"viewer": request.user}).data)

    # Autosave validates every body with one instance: run_validation keeps no state between
    # calls, and a new serializer would deep-copy its declared fields on each save (a tenth of a
    # save's time). The errors are the same {field: [message]} that is_valid() raises.
    update_input = MarkUpdateInputSerializer()

    @extend_schema(request=MarkUpdateInputSerializer, responses=MarkOutputSerializer)
    def patch(self, request: Request, mark_id: int) -> Response:
        mark = selectors.mark_for_edit(user=request.user, mark_id=mark_id)
        changes = dict(self.update_input.run_validation(request.data))
        version = changes.pop("version")
        mark = mark_update(mark=mark, user=request.user, version=version, changes=changes)
        return Response(MarkOutputSerializer(mark).data)

    @extend_schema(request=MarkDeleteInputSerializer, responses={204: None})
    def delete(self, request: Request, mark_id: int) -> Response:
        mark = selectors.mark_get(user=request.user, mark_id=mark_id)
        data = self.MarkDeleteInputSerializer(data=request.data or request.query_params)
        data.is_valid(raise_exception=True)
        mark_delete(mark=mark, user=request.user, version=data.validated_data["version"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class ItemListApi(APIView):
    class ItemCompileInputSerializer(serializers.Serializer):
        task = serializers.ChoiceField(choices=Item.Task.choices)
        mark_ids = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        seed = serializers.IntegerField(required=False, allow_null=True, min_value=0)

    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [IsAuthenticated(), IsAnnotator()]
        return [IsAuthenticated()]

    @extend_schema(responses=ItemOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        if not (has_role(request.user, ADMIN) or has_role(request.user, "annotator")):
            self.permission_denied(request, message="reviewers see items through the review queue")
        scene_id = request.query_params.get("scene", "")
        if scene_id and not scene_id.isdigit():
            return Response({"scene": ["a scene id is a number"]}, status=status.HTTP_400_BAD_REQUEST)
        items = selectors.items_for_user(user=request.user, scene_id=int(scene_id) if scene_id else None)
        return Response(ItemOutputSerializer(items, many=True).data)

    @extend_schema(request=ItemCompileInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.ItemCompileInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_compile(user=request.user, **data.validated_data)
        return Response(
            ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item.id)).data,
            status=status.HTTP_201_CREATED,
        )


class ItemDetailApi(APIView):
    @extend_schema(responses=ItemOutputSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        return Response(ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item_id)).data)


class ItemSubmitApi(APIView):
    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(request=None, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        with transaction.atomic():
            item = item_submit(item=selectors.item_get(user=request.user, item_id=item_id), user=request.user)
        return Response(ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item.id)).data)


class AssignmentOutputSerializer(serializers.Serializer):
    scene = serializers.IntegerField(source="scene_id")
    annotator = serializers.CharField(source="annotator.username")
    created_at = serializers.DateTimeField()


class SceneAssignmentsApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class AssignmentInputSerializer(serializers.Serializer):
        annotator = serializers.CharField(max_length=150)

    @extend_schema(responses=AssignmentOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        return Response(AssignmentOutputSerializer(selectors.assignments_for_scene(scene=scene), many=True).data)

    @extend_schema(request=AssignmentInputSerializer, responses=AssignmentOutputSerializer)
    def post(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        data = self.AssignmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_user_model().objects.filter(username=data.validated_data["annotator"]).first()
        if user is None:
            return Response({"annotator": ["no user with this name"]}, status=status.HTTP_400_BAD_REQUEST)
        assignment = assignment_create(scene=scene, annotator=user, assigned_by=request.user)
        return Response(AssignmentOutputSerializer(assignment).data, status=status.HTTP_201_CREATED)
