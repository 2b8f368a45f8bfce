"""CVAA on the platform: a scene on a real satellite image (Rotterdam, 300 x 300 px at 1 m) whose
keyframes are crops of that image, and tiny checkpoints trained for a few steps on the CPU."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image

from annotator.models import CvaaCheckpoint, Scene
from annotator.processing.cvaa.checkpoints import checkpoint_activate, checkpoint_create
from media_tools.cvaa import CvaaConfig, SyntheticPairs, load_rgb
from media_tools.geo import georef_from_geotiff
from tests.factories import KeyframeFactory, SatelliteImageFactory, SceneFactory

ROTTERDAM = "satellite/spacenet6_rotterdam_rgb8_1m_derived.tif"
# Where each keyframe (one per second) looks: [x1, y1, x2, y2] on the 300 x 300 image.
CROPS = [(20, 30, 140, 130), (150, 40, 270, 140), (60, 160, 180, 260), (170, 170, 290, 270)]


@pytest.fixture(scope="session", autouse=True)
def _two_threads() -> None:
    import torch

    torch.set_num_threads(2)  # the test machines have two cores


@pytest.fixture(autouse=True)
def _fresh_encoders() -> None:
    """Workers keep loaded models by weights digest; each test starts as a fresh worker."""
    from annotator.processing.cvaa import checkpoints

    checkpoints._ENCODERS.clear()


@pytest.fixture(scope="session")
def rotterdam(testdata: Path) -> np.ndarray:
    return load_rgb(testdata / ROTTERDAM)


def _train(image: np.ndarray, seed: int) -> bytes:
    from media_tools.cvaa import train

    config = CvaaConfig.tiny()
    return train(SyntheticPairs.from_config(image, config), config, steps=3, seed=seed, val_size=16).checkpoint_bytes


@pytest.fixture(scope="session")
def tiny_bytes(rotterdam: np.ndarray) -> bytes:
    """A tiny model after three steps: a real checkpoint, not a good retriever."""
    return _train(rotterdam, seed=1)


@pytest.fixture(scope="session")
def other_bytes(rotterdam: np.ndarray) -> bytes:
    return _train(rotterdam, seed=2)


@pytest.fixture
def active_checkpoint(db, tiny_bytes: bytes) -> CvaaCheckpoint:  # type: ignore[no-untyped-def]
    checkpoint, _ = checkpoint_create(data=tiny_bytes, name="tiny.pt", origin="uploaded", created_by=None)
    checkpoint_activate(checkpoint_id=checkpoint.id)
    checkpoint.refresh_from_db()
    return checkpoint


def jpeg(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=92)
    return out.getvalue()


@pytest.fixture
def rotterdam_scene(db, testdata: Path, rotterdam: np.ndarray, annotator) -> Scene:  # type: ignore[no-untyped-def]
    """The Rotterdam GeoTIFF (georeferenced) as the map of a scene assigned to `annotator`, with four
    keyframes at 0, 1, 2, 3 s that are crops of it (CROPS)."""
    path = testdata / ROTTERDAM
    image = SatelliteImageFactory(
        original_name="rotterdam.tif", width=300, height=300, content=path.read_bytes(),
        georef=georef_from_geotiff(path).to_dict(),
    )  # fmt: skip
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    for i, (x1, y1, x2, y2) in enumerate(CROPS):
        name = default_storage.save(
            f"keyframes/v{scene.video_id}/{i:06d}.jpg", ContentFile(jpeg(rotterdam[y1:y2, x1:x2]))
        )
        KeyframeFactory(video=scene.video, index=i, time_s=float(i), image=name)
    return scene


@pytest.fixture
def run_previews() -> Callable[[Scene], object]:
    """Run the scene's `cvaa` job here (as a worker would) and return it afterwards."""
    from annotator.models import MediaJob
    from annotator.processing.graph import job_run
    from annotator.processing.jobs import media_job_reset

    def run(scene: Scene) -> MediaJob:
        job, _ = MediaJob.objects.get_or_create(scene=scene, kind=MediaJob.Kind.CVAA)
        media_job_reset(job_id=job.id)
        job_run(job_id=job.id)
        job.refresh_from_db()
        return job

    return run
