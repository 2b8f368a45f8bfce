"""Output shapes of scenes and their satellite images."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from annotator.models import SatelliteImage, Scene
from annotator.processing.selectors import jobs_for_scene
from annotator.processing.serializers import MediaJobOutputSerializer


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
    project: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    labels = serializers.SerializerMethodField()

    class Meta:
        model = Scene
        fields = ["id", "name", "project", "labels", "description", "video", "satellite_images", "jobs", "created_at"]

    def get_labels(self, obj: Scene) -> list[dict[str, str]]:
        """The label set of the scene's project: what its marks may be called, instance or region."""
        return list(obj.project.labels)

    def get_jobs(self, obj: Scene) -> list[dict[str, Any]]:
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
