"""Media records (videos, satellite images, keyframes, telemetry) and their processing jobs."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class Video(models.Model):
    file = models.FileField(upload_to="videos/%Y/%m/", max_length=300)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField()
    # Filled by the probe job; null until then.
    duration_s = models.FloatField(null=True, blank=True)
    fps = models.FloatField(null=True, blank=True)
    frame_count = models.IntegerField(null=True, blank=True)
    width = models.IntegerField(null=True, blank=True)
    height = models.IntegerField(null=True, blank=True)
    codec = models.CharField(max_length=32, blank=True)
    pixel_format = models.CharField(max_length=32, blank=True)
    container = models.CharField(max_length=64, blank=True)
    rotation = models.SmallIntegerField(default=0)
    is_vfr = models.BooleanField(null=True, blank=True)
    has_audio = models.BooleanField(null=True, blank=True)
    probe = models.JSONField(default=dict, blank=True)
    # Browser-safe H.264 copy when the original cannot play in a browser (reason says why).
    proxy = models.FileField(upload_to="proxies/", max_length=300, blank=True)
    proxy_reason = models.CharField(max_length=200, blank=True)
    poster = models.ImageField(upload_to="posters/", max_length=300, blank=True)
    filmstrip_sprite = models.ImageField(upload_to="filmstrips/", max_length=300, blank=True)
    filmstrip_vtt = models.FileField(upload_to="filmstrips/", max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(size_bytes__gt=0), name="video_size_positive"),
            models.CheckConstraint(
                condition=Q(duration_s__isnull=True) | Q(duration_s__gt=0), name="video_duration_positive"
            ),
            models.CheckConstraint(condition=Q(rotation__in=[0, 90, 180, 270]), name="video_rotation_quarter"),
        ]

    def __str__(self) -> str:
        return self.original_name

    @property
    def container_name(self) -> str:
        """ffprobe names demuxers by family ("mov,mp4,m4a,3gp,3g2,mj2"); people know the file type."""
        family = [c for c in self.container.split(",") if c]
        suffix = self.original_name.rsplit(".", 1)[-1].lower() if "." in self.original_name else ""
        return suffix if suffix in family else (family[0] if family else "")


class SatelliteImage(models.Model):
    class GeorefKind(models.TextChoices):
        GEOTIFF = "geotiff", "GeoTIFF tags"
        WORLD_FILE = "world_file", "World file"
        CORNERS = "corners", "Corner coordinates"
        GCPS = "gcps", "Ground control points"

    file = models.FileField(upload_to="satellite/%Y/%m/", max_length=300)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, unique=True)
    width = models.IntegerField()
    height = models.IntegerField()
    bands = models.SmallIntegerField(null=True, blank=True)
    dtype = models.CharField(max_length=16, blank=True)
    # Georeference inputs besides GeoTIFF tags: corners {"tl": [lat, lon], ...}, ground control
    # points [[x, y, lat, lon], ...], a world file and the CRS it is in.
    corners = models.JSONField(null=True, blank=True)
    gcps = models.JSONField(null=True, blank=True)
    world_file = models.FileField(upload_to="satellite/", max_length=300, blank=True)
    world_file_crs = models.CharField(max_length=64, blank=True)
    # Result of the georeference job: GeoReference.to_dict(), how it was found, its RMS in metres.
    georef = models.JSONField(null=True, blank=True)
    georef_kind = models.CharField(max_length=16, blank=True, choices=GeorefKind.choices)
    georef_rms_m = models.FloatField(null=True, blank=True)
    # 8-bit RGB(A) rendering for display (percentile stretch); the original file stays as is.
    display = models.ImageField(upload_to="satellite/display/", max_length=300, blank=True)
    # Tile pyramid (Zoomify layout) under this storage prefix.
    tiles_prefix = models.CharField(max_length=300, blank=True)
    tile_size = models.PositiveIntegerField(null=True, blank=True)
    tile_levels = models.PositiveSmallIntegerField(null=True, blank=True)
    tile_format = models.CharField(max_length=4, blank=True)  # "jpg", or "png" when the image has alpha
    # Where the image has data (outside black or transparent borders): a GeoJSON Polygon or
    # MultiPolygon in full-resolution pixels, written by the valid-area job (null until it ran).
    # Wrong options of the lettered tasks are only drawn inside it.
    valid_area = models.JSONField(null=True, blank=True)
    # Where the picture comes from, shown to people (e.g. "keyframe of the clip itself").
    provenance_note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(width__gt=0) & Q(height__gt=0), name="satellite_size_positive"),
        ]

    def __str__(self) -> str:
        return self.original_name

    @property
    def corner_list(self) -> list[tuple[str, list[float]]]:
        """The georeferenced image corners as (name, [lat, lon]) for people, clockwise from top left."""
        corners = (self.georef or {}).get("corners_latlon") or {}
        names = {"tl": "Top left", "tr": "Top right", "br": "Bottom right", "bl": "Bottom left"}
        return [(names[k], list(corners[k])) for k in names if k in corners]


class Keyframe(models.Model):
    video = models.ForeignKey(Video, on_delete=models.CASCADE, related_name="keyframes")
    index = models.IntegerField()
    time_s = models.FloatField()
    image = models.ImageField(upload_to="keyframes/", max_length=300)

    class Meta:
        ordering = ["video_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["video", "index"], name="keyframe_unique_index"),
            models.CheckConstraint(condition=Q(time_s__gte=0) & Q(index__gte=0), name="keyframe_time_nonneg"),
        ]

    def __str__(self) -> str:
        return f"video {self.video_id} @ {self.time_s:.2f} s"


class TelemetryTrack(models.Model):
    """A drone's position over video time: from the file's GoPro GPMF track or an uploaded CSV/SRT."""

    class Source(models.TextChoices):
        GPMF = "gpmf", "GoPro GPMF in the video"
        CSV = "csv", "Uploaded CSV"
        SRT = "srt", "Uploaded SRT (DJI)"

    scene = models.OneToOneField("annotator.Scene", on_delete=models.CASCADE, related_name="telemetry")
    source = models.CharField(max_length=8, choices=Source.choices)
    original = models.FileField(upload_to="telemetry/", max_length=300, blank=True)
    # The CSV columns the admin named at import (field -> column, "" = not in the file); the rest
    # are guessed from their names (media_tools.telemetry.tracks).
    columns = models.JSONField(default=dict, blank=True)
    sample_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.source} track of scene {self.scene_id} ({self.sample_count} samples)"


class TelemetrySample(models.Model):
    track = models.ForeignKey(TelemetryTrack, on_delete=models.CASCADE, related_name="samples")
    time_s = models.FloatField()
    lat = models.FloatField()
    lon = models.FloatField()
    # Above mean sea level (GPS); the height above take-off is what a footprint is drawn from.
    alt_m = models.FloatField(null=True, blank=True)
    height_m = models.FloatField(null=True, blank=True)
    heading_deg = models.FloatField(null=True, blank=True)
    speed_mps = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["track_id", "time_s"]
        indexes = [models.Index(fields=["track", "time_s"], name="telemetry_track_time")]
        constraints = [
            models.CheckConstraint(
                condition=Q(lat__gte=-90) & Q(lat__lte=90) & Q(lon__gte=-180) & Q(lon__lte=180),
                name="telemetry_latlon_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.time_s:.2f} s: {self.lat:.6f}, {self.lon:.6f}"


# Scene jobs (the video, and what is computed per keyframe) and satellite image jobs.
VIDEO_JOB_KINDS = ["probe", "keyframes", "filmstrip", "proxy", "telemetry", "cvaa", "placements"]
IMAGE_JOB_KINDS = ["render", "georeference", "tiles", "valid_area"]


class MediaJob(models.Model):
    class Kind(models.TextChoices):
        PROBE = "probe", "Probe video"
        KEYFRAMES = "keyframes", "Extract keyframes"
        FILMSTRIP = "filmstrip", "Filmstrip and poster"
        PROXY = "proxy", "Browser-safe video"
        TELEMETRY = "telemetry", "Drone telemetry"
        RENDER = "render", "Render satellite image"
        GEOREFERENCE = "georeference", "Georeference"
        TILES = "tiles", "Tile pyramid"
        VALID_AREA = "valid_area", "Valid-data area"
        CVAA = "cvaa", "Retrieval previews (CVAA)"
        PLACEMENTS = "placements", "Keyframe placements"

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        # Ran and found nothing it could do yet (e.g. no model to compute previews with); `detail`
        # says why. Not a failure of the media: running it again later may succeed.
        SKIPPED = "skipped"

    # A job works on a scene's video or on a satellite image (which several scenes may share).
    scene = models.ForeignKey("annotator.Scene", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    satellite_image = models.ForeignKey(
        SatelliteImage, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    kind = models.CharField(max_length=32, choices=Kind.choices)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    # What a finished job found, for people ("proxy not needed: h264 yuv420p in mp4", "RMS 0.18 m").
    detail = models.CharField(max_length=300, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # While running: the time until which its worker holds it. The worker renews it while the step
    # runs; a running job whose lease ran out lost its worker and is taken up again (jobs.py).
    lease_until = models.DateTimeField(null=True, blank=True)
    # How many workers vanished while running it since it last succeeded or an admin retried it: a
    # step that kills its worker every time (out of memory) ends `failed` instead of looping.
    workers_lost = models.PositiveSmallIntegerField(default=0)
    # Set when sending the job to the queue failed (broker down); the job stays pending, `detail`
    # says so, and workers send it again once the broker answers.
    unsent_since = models.DateTimeField(null=True, blank=True)
    # Set when something the job reads changed while a live worker ran it (jobs.media_job_again): that
    # run's outcome is kept and the job goes back in line as it ends, so it never runs twice at once and
    # the change is not lost.
    rerun = models.BooleanField(default=False)
    # A pending job that ran and found inputs still to run: their kinds, comma-separated ("keyframes,
    # telemetry"); empty otherwise. The job list says "waiting for ..." rather than a bare "pending".
    waiting_for = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["scene", "kind"], condition=Q(scene__isnull=False), name="mediajob_one_per_scene_kind"
            ),
            models.UniqueConstraint(
                fields=["satellite_image", "kind"],
                condition=Q(satellite_image__isnull=False),
                name="mediajob_one_per_image_kind",
            ),
            models.CheckConstraint(
                condition=(
                    Q(scene__isnull=False, satellite_image__isnull=True, kind__in=VIDEO_JOB_KINDS)
                    | Q(scene__isnull=True, satellite_image__isnull=False, kind__in=IMAGE_JOB_KINDS)
                ),
                name="mediajob_target_matches_kind",
            ),
            models.CheckConstraint(condition=Q(progress__lte=100), name="mediajob_progress_range"),
            models.CheckConstraint(
                condition=Q(state__in=["pending", "running", "succeeded", "failed", "skipped"]),
                name="mediajob_state_valid",
            ),
            models.CheckConstraint(condition=~Q(state="failed") | ~Q(error=""), name="mediajob_failed_has_reason"),
        ]

    def __str__(self) -> str:
        target = f"scene {self.scene_id}" if self.scene_id else f"image {self.satellite_image_id}"
        return f"{self.kind} of {target}: {self.state}"

    @property
    def waiting_kinds(self) -> list[str]:
        """The kinds a pending job waits for (`waiting_for`), [] for any other job."""
        return self.waiting_for.split(",") if self.waiting_for and self.state == self.State.PENDING else []
