"""Output shape of marks (pixel geometry, WGS84 beside it when the image is georeferenced)."""

from __future__ import annotations

import json
from typing import Any

from rest_framework import serializers

from annotator.access.scopes import may_see_facts
from annotator.marking.geometry import geometries_lonlat, geometry_lonlat
from annotator.models import Mark
from annotator.outputs import FieldsBuiltOnce
from media_tools.geo import GeoReference


class MarkListSerializer(serializers.ListSerializer):
    """A list of marks, whose WGS84 geometries are projected per image in one call before the
    marks are answered one by one (marking.geometry.geometries_lonlat)."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        marks = list(data.all() if hasattr(data, "all") else data)
        by_image: dict[int, list[Mark]] = {}
        for mark in marks:
            by_image.setdefault(mark.satellite_image_id, []).append(mark)
        projected: dict[int, Any] = {}
        context: Any = self.context  # the answer's, which each mark's serializer shares
        for group in by_image.values():
            ref = _georef_of(group[0], context)
            for mark, lonlat in zip(group, geometries_lonlat([m.geometry for m in group], ref), strict=True):
                projected[mark.pk] = lonlat
        context["_lonlats"] = projected
        return super().to_representation(marks)


class MarkOutputSerializer(FieldsBuiltOnce, serializers.Serializer):
    """Facts (e.g. visible in video?) are answer keys: pass context={"viewer": user} and only the
    author and admins get them, so a reviewer's blind answer stays blind.

    Fields are declared rather than introspected from the model (ModelSerializer): autosave answers
    with a mark on every save, and building the fields from the model each time was a quarter of
    the save's server time under the profiler. Built once per process (annotator.outputs): the
    declared fields were still deep-copied for every answer."""

    id = serializers.IntegerField()
    scene = serializers.IntegerField(source="scene_id")
    satellite_image = serializers.IntegerField(source="satellite_image_id")
    author = serializers.IntegerField(source="author_id")
    kind = serializers.ChoiceField(choices=Mark.Kind.choices)
    geometry = serializers.JSONField()
    label = serializers.CharField()  # type: ignore[assignment]
    time_start = serializers.FloatField()
    time_end = serializers.FloatField(allow_null=True)
    vertex_times = serializers.ListField(child=serializers.FloatField())
    facts = serializers.DictField()
    version = serializers.IntegerField()
    locked = serializers.BooleanField()
    # Locked, yet editable by its author: an edit is written to a copy their drafts and rejected
    # items move to (the items in review or approved keep this mark). False where not read.
    copy_on_edit = serializers.SerializerMethodField()
    # The mark this one was copied from on write (null for marks drawn as such).
    copied_from = serializers.IntegerField(source="copied_from_id", allow_null=True)
    client_key = serializers.UUIDField(allow_null=True)
    # A tracked trajectory its author has not confirmed yet (annotator.marking.assist).
    draft = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    lonlat = serializers.SerializerMethodField()

    class Meta:
        list_serializer_class = MarkListSerializer

    def get_copy_on_edit(self, obj: Mark) -> bool:
        return bool(obj.locked and getattr(obj, "copy_on_edit", False))

    def get_lonlat(self, obj: Mark) -> dict[str, Any] | None:
        projected = self.context.get("_lonlats")
        if projected is not None and obj.pk in projected:
            return projected[obj.pk]  # a list's, projected together (MarkListSerializer)
        return geometry_lonlat(obj.geometry, _georef_of(obj, self.context))

    def to_representation(self, instance: Mark) -> dict[str, Any]:
        data = super().to_representation(instance)
        viewer = self.context.get("viewer")
        if viewer is not None and not may_see_facts(user=viewer, author_id=instance.author_id):
            data.pop("facts", None)
        return data


def _georef_of(mark: Mark, context: Any) -> GeoReference | None:
    """The georeference of the mark's image, parsed once per response (a list shares one context).
    A list's marks carry it as `image_georef`, its JSON text (marking.selectors.marks_for_scene),
    not their image."""
    cache = context.setdefault("_georefs", {})
    if mark.satellite_image_id not in cache:
        if hasattr(mark, "image_georef"):
            georef = json.loads(mark.image_georef) if mark.image_georef else None
        else:
            georef = mark.satellite_image.georef
        cache[mark.satellite_image_id] = GeoReference.from_dict(georef) if georef else None
    return cache[mark.satellite_image_id]


def mark_feature(data: dict[str, Any]) -> dict[str, Any]:
    """A serialized mark as a GeoJSON-like Feature: geometry in image pixels (x right, y down),
    everything else in properties, and the WGS84 geometry beside it when georeferenced."""
    props = {k: v for k, v in data.items() if k not in ("id", "geometry", "lonlat")}
    return {
        "type": "Feature",
        "id": data["id"],
        "geometry": data["geometry"],
        "properties": props,
        "geometry_lonlat": data.get("lonlat"),
    }
