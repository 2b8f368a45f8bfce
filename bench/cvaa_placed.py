"""Place the keyframes of every scene with the geometric locator, for CVAA training on real placements.

Writes a KeyframePlacement row (source "matching", the locator's confidence, its corner uncertainty) for
each keyframe and image the locator places and that has no row yet; frames it refuses get none. This is
what the placement service does per scene; this script exists so the training figures in bench/README.md
("CVAA trained on placements") can be made on a database the service has not filled. Run against the
database named by DATABASE_URL (and SKYMARK_DATA_DIR for its media), after `manage.py seed_demo` and
`manage.py process_scenes`:

    python bench/cvaa_placed.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> None:
    import django

    django.setup()
    from annotator.models import Keyframe, KeyframePlacement, Scene
    from annotator.storage import local_copy
    from media_tools.cvaa import load_rgb
    from media_tools.cvaa.geometry import GeometricLocator

    for scene in Scene.objects.select_related("video").order_by("id"):
        keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
        for image in scene.satellite_images.order_by("id"):
            with local_copy(image.file.name or "") as path:
                locator = GeometricLocator(load_rgb(path))
            placed, started = 0, time.perf_counter()
            for kf in keyframes:
                if KeyframePlacement.objects.filter(keyframe=kf, satellite_image=image).exists():
                    continue
                with local_copy(kf.image.name or "") as path:
                    frame = load_rgb(path)
                found = locator.locate(frame)
                if found is None:
                    continue
                KeyframePlacement.objects.create(
                    keyframe=kf, satellite_image=image, source=found.source, quad=found.quad.tolist(),
                    homography=found.homography.tolist() if found.homography is not None else None,
                    frame_width=found.frame_size[0], frame_height=found.frame_size[1],
                    confidence=found.confidence, uncertainty_px=found.uncertainty_px, details=found.details,
                )  # fmt: skip
                placed += 1
            seconds = time.perf_counter() - started
            print(f"{scene.name} on image {image.id}: {placed} of {len(keyframes)} keyframes placed ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
