"""manage.py eval_assist: assisted trajectories measured on an imported Saro roundabout scene."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.marking.assist.placements import placed_keyframes
from annotator.models import Scene
from media_tools import MediaError

DEFAULT_TESTDATA = settings.BASE_DIR.parent / "shared" / "testdata"


class Command(BaseCommand):
    help = (
        "Position error on the map (mean, p90, in metres) and share of frames tracked of the Saro roundabout "
        "cars tracked and projected the way the platform does it: through the scene's keyframe placements and "
        "import footprint (what a tracking job projects through), beside the same tracks through every frame's "
        "own control-point homography. Truth: the labelled boxes' centres through their frame's homography."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scene", default="Saro roundabout", help="the imported scene's name or id")
        parser.add_argument("--testdata", type=Path, default=DEFAULT_TESTDATA, help="the shared test media")
        parser.add_argument("--max-gap", type=float, default=5.0, help="seconds from a placement still projected")

    def handle(self, *args: Any, **opts: Any) -> None:
        from media_tools.assist.evaluate import table
        from media_tools.assist.projection import INTERPOLATE
        from media_tools.assist.saro import saro_setup
        from media_tools.geo import GeoReference

        scene = self._scene(opts["scene"])
        image = scene.satellite_images.exclude(georef=None).order_by("id").first()
        if image is None:
            raise CommandError(f"{scene.name}: no georeferenced image; wait for its georeference job")
        placed = placed_keyframes(scene=scene, image=image)
        if not placed:
            raise CommandError(f"{scene.name}: no frame is placed on {image.original_name}; nothing to project through")
        sources = sorted({k.placement.source for k in placed})
        self.stdout.write(
            f"{scene.name}: image {image.original_name}, {len(placed)} placed frame(s) ({', '.join(sources)})"
        )
        try:
            with tempfile.TemporaryDirectory(prefix="skymark-eval-assist-") as tmp:
                setup = saro_setup(
                    opts["testdata"] / "videos", Path(tmp), image_ref=GeoReference.from_dict(image.georef or {})
                )
        except (MediaError, OSError, ValueError) as exc:
            raise CommandError(f"the Saro test media: {exc}") from exc
        rows = {
            "platform placements, interpolated": (placed, INTERPOLATE),
            "per-frame control points": setup.rows(chained=False)["per-frame control points"],
        }
        result = table(
            setup.frames,
            setup.paths,
            truth_homographies=setup.truth,
            rows=rows,
            metres_per_px=setup.metres_per_px,
            clock=time.perf_counter,
            max_gap_s=opts["max_gap"],
        )
        self.stdout.write(
            f"{'row':<36}{'paths':>6}{'tracked':>9}{'mean m':>8}{'p90 m':>7}{'<1 m':>7}{'failed':>7}{'s/track':>9}"
        )
        for name, r in result.items():
            self.stdout.write(
                f"{name:<36}{r['paths']:>6}{r['share_tracked']:>9.3f}{r['mean_m']:>8.2f}{r['p90_m']:>7.2f}"
                f"{r['within_1m']:>7.2f}{r['paths_failed']:>7}{r['seconds_per_path']:>9.3f}"
            )

    def _scene(self, key: str) -> Scene:
        qs = Scene.objects.select_related("video")
        scene = qs.filter(id=int(key)).first() if key.isdigit() else qs.filter(name=key).order_by("id").first()
        if scene is None:
            raise CommandError(
                f"no scene {key!r}: import the demo first (manage.py seed_demo, or import_scenes demo/manifest.json)"
            )
        return scene
