"""Output shapes shared by the APIs (input serializers live next to each API)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from annotator.geometry import geometry_lonlat
from annotator.models import Item, Keyframe, Mark, MediaJob, SatelliteImage, Scene
from annotator.roles import ADMIN, has_role
from media_tools.geo import GeoReference


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


class SatelliteImageOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    georeference = serializers.SerializerMethodField()
    tiles = serializers.SerializerMethodField()

    class Meta:
        model = SatelliteImage
        fields = [
            "id",
            "original_name",
            "width",
            "height",
            "bands",
            "dtype",
            "corners",
            "gcps",
            "provenance_note",
            "url",
            "georeference",
            "tiles",
        ]

    def get_url(self, obj: SatelliteImage) -> str:
        return reverse("satellite-file", args=[obj.id])

    def get_georeference(self, obj: SatelliteImage) -> dict[str, Any] | None:
        """How pixels map to WGS84: the exact transform (pixel -> CRS matrix) plus a small
        pixel -> lon/lat homography for clients without a projection library."""
        if not obj.georef:
            return None
        return {
            "kind": obj.georef_kind,
            "crs": obj.georef.get("crs"),
            "matrix": obj.georef.get("matrix"),
            "rms_m": obj.georef_rms_m,
            "corners": obj.georef.get("corners_latlon"),
            "browser": obj.georef.get("browser"),
        }

    def get_tiles(self, obj: SatelliteImage) -> dict[str, Any] | None:
        """A Zoomify pyramid (OpenLayers' ol/source/Zoomify reads `url` as is)."""
        if not obj.tiles_prefix:
            return None
        base = reverse("satellite-tile", args=[obj.id, "TILE"]).removesuffix("TILE")
        return {
            "layout": "zoomify",
            "url": f"{base}{{TileGroup}}/{{z}}-{{x}}-{{y}}.{obj.tile_format or 'jpg'}",
            "tile_size": obj.tile_size,
            "levels": obj.tile_levels,
        }


class SceneOutputSerializer(serializers.ModelSerializer):
    video = serializers.SerializerMethodField()
    satellite_images = SatelliteImageOutputSerializer(many=True)
    jobs = serializers.SerializerMethodField()

    class Meta:
        model = Scene
        fields = ["id", "name", "description", "video", "satellite_images", "jobs", "created_at"]

    def get_jobs(self, obj: Scene) -> list[dict[str, Any]]:
        from annotator.selectors import jobs_for_scene

        return list(MediaJobOutputSerializer(jobs_for_scene(scene=obj), many=True).data)

    def get_video(self, obj: Scene) -> dict[str, Any]:
        v = obj.video
        return {
            "name": v.original_name,
            "url": reverse("scene-video", args=[obj.id]),
            "sha256": v.sha256,
            "duration_s": v.duration_s,
            "fps": v.fps,
            "frame_count": v.frame_count,
            "width": v.width,
            "height": v.height,
            "codec": v.codec,
            "pixel_format": v.pixel_format,
            "rotation": v.rotation,
            "variable_frame_rate": v.is_vfr,
            "has_audio": v.has_audio,
            "proxy": bool(v.proxy),
            "proxy_reason": v.proxy_reason,
            "poster_url": reverse("scene-asset", args=[obj.id, "poster.jpg"]) if v.poster else None,
            "filmstrip_vtt_url": reverse("scene-asset", args=[obj.id, "filmstrip.vtt"]) if v.filmstrip_vtt else None,
        }


class KeyframeOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Keyframe
        fields = ["index", "time_s", "url"]

    def get_url(self, obj: Keyframe) -> str:
        return reverse("keyframe-file", args=[obj.video_id, obj.index])


class MarkOutputSerializer(serializers.ModelSerializer):
    """Facts (e.g. visible in video?) are answer keys: only the author and admins see them, so a
    reviewer's blind answer stays blind. Pass context={"viewer": user}."""

    class Meta:
        model = Mark
        fields = [
            "id",
            "scene",
            "satellite_image",
            "author",
            "kind",
            "geometry",
            "label",
            "time_start",
            "time_end",
            "vertex_times",
            "facts",
            "version",
            "created_at",
            "updated_at",
        ]

    def to_representation(self, instance: Mark) -> dict[str, Any]:
        # Written out rather than built field by field: autosave serializes a mark on every save,
        # and DRF's per-instance field machinery cost more than the save itself. The declared Meta
        # fields still describe the schema; tests check both agree.
        data: dict[str, Any] = {
            "id": instance.id,
            "scene": instance.scene_id,
            "satellite_image": instance.satellite_image_id,
            "author": instance.author_id,
            "kind": instance.kind,
            "geometry": instance.geometry,
            "label": instance.label,
            "time_start": instance.time_start,
            "time_end": instance.time_end,
            "vertex_times": instance.vertex_times,
            "facts": instance.facts,
            "version": instance.version,
            "created_at": _iso(instance.created_at),
            "updated_at": _iso(instance.updated_at),
        }
        viewer = self.context.get("viewer")
        if viewer is not None and viewer.pk != instance.author_id and not has_role(viewer, ADMIN):
            data.pop("facts", None)
        data["lonlat"] = geometry_lonlat(instance.geometry, _georef_of(instance.satellite_image, self.context))
        return data


def _iso(value: Any) -> str | None:
    return serializers.DateTimeField().to_representation(value) if value else None


def _georef_of(image: SatelliteImage, context: Any) -> GeoReference | None:
    """The image's georeference, parsed once per response (a list shares one cache)."""
    cache = context.setdefault("_georefs", {})
    if image.id not in cache:
        cache[image.id] = GeoReference.from_dict(image.georef) if image.georef else None
    return cache[image.id]


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
