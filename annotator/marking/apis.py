"""REST API of marks: list, create, autosave (PATCH with a version), delete."""

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
from annotator.conditional import conditional
from annotator.inputs import FieldsCopied
from annotator.intake.selectors import scene_get_bare
from annotator.marking import selectors
from annotator.marking.serializers import MarkOutputSerializer, mark_feature
from annotator.marking.services import mark_create, mark_delete, mark_update
from annotator.models import Mark
from annotator.pagination import Pages, paginate
from annotator.parsers import INT64_MAX


class MarkInputSerializer(FieldsCopied, serializers.Serializer):
    satellite_image = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
    kind = serializers.ChoiceField(choices=Mark.Kind.choices)
    geometry = serializers.JSONField()
    label = serializers.CharField(max_length=64)  # type: ignore[assignment]
    time_start = serializers.FloatField(min_value=0)
    time_end = serializers.FloatField(required=False, allow_null=True, default=None)
    vertex_times = serializers.ListField(child=serializers.FloatField(), required=False, default=list, max_length=5_000)
    facts = serializers.DictField(required=False, default=dict)
    # Drawn by the client once per new mark and sent with every retry of the create (a UUID).
    client_key = serializers.UUIDField(required=False, allow_null=True, default=None)


def feature_to_input(body: Any) -> Any:
    """Accept a mark as a GeoJSON-like Feature too: pixel geometry plus properties."""
    if isinstance(body, dict) and body.get("type") == "Feature":
        return {**(body.get("properties") or {}), "geometry": body.get("geometry")}
    return body


def _image_named(body: Any) -> int | None:
    """The image id the body names, when it is one (read with the scene it goes on); the serializer
    still validates the field, and any other value is read apart by the service as before."""
    value = body.get("satellite_image") if isinstance(body, dict) else None
    return value if type(value) is int and 0 < value <= INT64_MAX else None


class SceneMarksApi(APIView):
    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [IsAuthenticated(), IsAnnotator(), IsAssignedToScene()]
        return [IsAuthenticated()]

    pagination_class = Pages

    @extend_schema(responses=MarkOutputSerializer(many=True))
    def get(self, request: Request, scene_id: int) -> Response:
        """One page of the scene's marks; `?as=features`: the page as a GeoJSON FeatureCollection
        that carries the page's count / next / previous as foreign members."""
        marks = selectors.scene_marks(user=request.user, scene_id=scene_id)
        page = paginate(request, marks, MarkOutputSerializer, context={"viewer": request.user})
        if request.query_params.get("as") == "features":
            rows = page.data.pop("results")
            page.data = {"type": "FeatureCollection", "features": [mark_feature(m) for m in rows], **page.data}
        # The workspace reads the marks again to see locks and to adopt closed tabs' edits: an
        # unchanged page then costs a 304 and no transfer (static/js/lib/api.js).
        return conditional(request, page)

    @extend_schema(request=MarkInputSerializer, responses={201: MarkOutputSerializer, 200: MarkOutputSerializer})
    def post(self, request: Request, scene_id: int) -> Response:
        body = feature_to_input(request.data)
        scene = selectors.scene_to_draw_on(user=request.user, scene_id=scene_id, image_id=_image_named(body))
        if scene is None:
            # Not theirs to draw on: a scene they cannot see is not found (404), one they see
            # but is not assigned to them is refused (403) by the permission classes.
            self.check_object_permissions(request, scene_get_bare(user=request.user, scene_id=scene_id))
            self.permission_denied(request, message=IsAssignedToScene.message)  # assigned since the read above
        data = MarkInputSerializer(data=body)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        # The image as an id: the service reads it through the scene, which is the check that it
        # belongs there (400 otherwise), in one query.
        mark = mark_create(scene=scene, author=request.user, satellite_image=v.pop("satellite_image"), **v)
        # A retry of a create that was applied gets the mark it made, 200 instead of 201.
        code = status.HTTP_200_OK if getattr(mark, "replayed", False) else status.HTTP_201_CREATED
        return Response(MarkOutputSerializer(mark).data, status=code)


class MarkDetailApi(APIView):
    """Anyone who may see a mark reads it; only its author, on a scene still assigned to them,
    changes or deletes it (and only while the item lifecycle has not locked it)."""

    class MarkUpdateInputSerializer(FieldsCopied, serializers.Serializer):
        version = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
        geometry = serializers.JSONField(required=False)
        label = serializers.CharField(max_length=64, required=False)  # type: ignore[assignment]
        time_start = serializers.FloatField(min_value=0, required=False)
        time_end = serializers.FloatField(required=False, allow_null=True)
        vertex_times = serializers.ListField(child=serializers.FloatField(), required=False, max_length=5_000)
        facts = serializers.DictField(required=False)

    class MarkDeleteInputSerializer(serializers.Serializer):
        version = serializers.IntegerField(min_value=1, max_value=INT64_MAX)

    def get_permissions(self) -> list[Any]:
        if self.request.method in ("PATCH", "DELETE"):
            return [IsAuthenticated(), IsAuthor(), IsAssignedToScene()]
        return [IsAuthenticated()]

    def _mark(self, request: Request, mark_id: int) -> Mark:
        mark = selectors.mark_get(user=request.user, mark_id=mark_id)
        self.check_object_permissions(request, mark)
        return mark

    def _mark_to_change(self, request: Request, mark_id: int) -> Mark:
        """The author's own mark in one query; anyone else gets the 404 or 403 the scoped read
        and the permission classes give."""
        mark = selectors.mark_for_edit(user=request.user, mark_id=mark_id)
        if mark is None:
            self._mark(request, mark_id)  # raises: not visible (404) or not theirs to change (403)
            raise Http404("no such mark")
        return mark

    @extend_schema(responses=MarkOutputSerializer)
    def get(self, request: Request, mark_id: int) -> Response:
        mark = self._mark(request, mark_id)
        return Response(MarkOutputSerializer(mark, context={"viewer": request.user}).data)

    @extend_schema(request=MarkUpdateInputSerializer, responses=MarkOutputSerializer)
    def patch(self, request: Request, mark_id: int) -> Response:
        mark = self._mark_to_change(request, mark_id)
        data = self.MarkUpdateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        version = changes.pop("version")
        # A stale version raises StaleWrite: 409 with the mark as it is now (annotator.exceptions).
        mark = mark_update(mark=mark, version=version, changes=changes)
        return Response(MarkOutputSerializer(mark).data)

    @extend_schema(request=MarkDeleteInputSerializer, responses={204: None})
    def delete(self, request: Request, mark_id: int) -> Response:
        mark = self._mark_to_change(request, mark_id)
        data = self.MarkDeleteInputSerializer(data=request.data or request.query_params)
        data.is_valid(raise_exception=True)
        mark_delete(mark=mark, version=data.validated_data["version"])
        return Response(status=status.HTTP_204_NO_CONTENT)
