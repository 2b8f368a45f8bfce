"""REST API of scene intake: scenes, their images, assignments."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema
from pyproj.exceptions import ProjError
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.access.scopes import project_by_slug
from annotator.exceptions import Conflict
from annotator.intake import selectors
from annotator.intake.manifest import telemetry_columns
from annotator.intake.serializers import SceneOutputSerializer
from annotator.intake.services import scene_import
from annotator.intake.uploads import scene_spec_from_uploads, telemetry_preview
from annotator.models import DEFAULT_PROJECT_SLUG
from annotator.pagination import Pages, paginate
from annotator.projects.services import assignment_create
from media_tools.geo import GeoReference


class SceneListApi(APIView):
    class SceneImportInputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        project = serializers.SlugField(required=False, help_text="slug of the project (default: the default one)")
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
        telemetry_columns = serializers.JSONField(
            required=False,
            default=dict,
            help_text='CSV columns of the track\'s fields where the guess is wrong: {"height_m": "rel_alt_m"} '
            '("" = the file has none); in a multipart body the same object as JSON text',
        )
        license = serializers.CharField(required=False, allow_blank=True, default="", max_length=200)
        attribution = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)
        description = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)
        annotators = serializers.ListField(child=serializers.CharField(), required=False, default=list)

        def validate_telemetry_columns(self, value: Any) -> dict[str, str]:
            if isinstance(value, str) and value.strip().startswith("{"):
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as exc:
                    raise serializers.ValidationError(f"not JSON: {exc.msg}") from exc
            try:
                return telemetry_columns(value)
            except ValueError as exc:
                raise serializers.ValidationError(str(exc).removeprefix("telemetry_columns: ")) from exc

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated(), IsAdmin()] if self.request.method == "POST" else [IsAuthenticated()]

    pagination_class = Pages

    @extend_schema(responses=SceneOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, selectors.scenes_for_user(user=request.user), SceneOutputSerializer)

    @extend_schema(request=SceneImportInputSerializer, responses={201: SceneOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.SceneImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        values = dict(v)
        project = project_by_slug(user=request.user, slug=values.pop("project", DEFAULT_PROJECT_SLUG))
        if v.get("gcps_file"):
            values["gcps"] = values.pop("gcps_file")
        with scene_spec_from_uploads(values) as spec:
            scene = scene_import(spec=spec, created_by=request.user, project=project)
        return Response(
            SceneOutputSerializer(selectors.scene_get(user=request.user, scene_id=scene.id)).data,
            status=status.HTTP_201_CREATED,
        )


class SceneDetailApi(APIView):
    @extend_schema(responses=SceneOutputSerializer)
    def get(self, request: Request, scene_id: int) -> Response:
        return Response(SceneOutputSerializer(selectors.scene_get(user=request.user, scene_id=scene_id)).data)


class SatelliteConvertApi(APIView):
    """Image pixels (x right, y down, from the top-left corner) <-> WGS84, with the exact transform."""

    class InputSerializer(serializers.Serializer):
        # Pixel positions beyond any image Skymark takes (MAX_IMAGE_PIXELS) are a typo or a probe.
        x = serializers.FloatField(required=False, min_value=-1e7, max_value=1e7)
        y = serializers.FloatField(required=False, min_value=-1e7, max_value=1e7)
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
        try:
            if "x" in v:
                lon, lat = ref.pixel_to_lonlat(v["x"], v["y"])
                return Response({"x": v["x"], "y": v["y"], "lat": float(lat), "lon": float(lon)})
            x, y = ref.lonlat_to_pixel(v["lon"], v["lat"])
        except ProjError:
            # A homography sends points far off the image past its horizon, out of the projection.
            field = "x" if "x" in v else "lat"
            return Response({field: ["this position lies outside what the image's georeference can map"]}, status=400)
        return Response({"x": float(x), "y": float(y), "lat": v["lat"], "lon": v["lon"]})


class AssignmentOutputSerializer(serializers.Serializer):
    scene = serializers.IntegerField(source="scene_id")
    annotator = serializers.CharField(source="annotator.username")
    created_at = serializers.DateTimeField()


class SceneAssignmentsApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class AssignmentInputSerializer(serializers.Serializer):
        annotator = serializers.CharField(max_length=150)

    pagination_class = Pages

    @extend_schema(responses=AssignmentOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        return paginate(request, selectors.assignments_for_scene(scene=scene), AssignmentOutputSerializer)

    @extend_schema(request=AssignmentInputSerializer, responses={201: AssignmentOutputSerializer})
    def post(self, request: Request, scene_id: int) -> Response:
        scene = selectors.scene_get(user=request.user, scene_id=scene_id)
        data = self.AssignmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_user_model().objects.filter(username=data.validated_data["annotator"]).first()
        if user is None:
            return Response({"annotator": ["no user with this name"]}, status=status.HTTP_400_BAD_REQUEST)
        assignment = assignment_create(scene=scene, annotator=user, assigned_by=request.user)
        return Response(AssignmentOutputSerializer(assignment).data, status=status.HTTP_201_CREATED)


class TelemetryPreviewApi(APIView):
    """The first rows of a CSV track and the columns guessed for each field, so the upload form can
    show them and let the admin name the right ones before anything is imported. Stores nothing."""

    permission_classes = [IsAuthenticated, IsAdmin]

    class TelemetryPreviewInputSerializer(serializers.Serializer):
        telemetry = serializers.FileField(help_text="a CSV track")

    class TelemetryPreviewOutputSerializer(serializers.Serializer):
        header = serializers.ListField(child=serializers.CharField())
        rows = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
        columns = serializers.DictField(child=serializers.CharField(), help_text="field -> guessed column")
        fields = serializers.ListField(  # type: ignore[assignment]
            child=serializers.DictField(), help_text="[{name, label, required}]"
        )

    @extend_schema(request=TelemetryPreviewInputSerializer, responses={200: TelemetryPreviewOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.TelemetryPreviewInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["telemetry"]
        preview = telemetry_preview(upload=upload)
        return Response(self.TelemetryPreviewOutputSerializer(preview).data)
