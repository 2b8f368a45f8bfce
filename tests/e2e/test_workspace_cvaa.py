"""The CVAA overlay while scrubbing: the retriever's box for the keyframe at the cursor, labelled with
its calibrated probability and hidden when not significant or not confident enough, beside the keyframe's
stored placement from its best source."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.models import CvaaPreview, KeyframePlacement, Scene
from tests.e2e.workspace_helpers import _flat, _open, _seek

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _tiny_checkpoint(testdata: Path) -> bytes:
    import torch

    from media_tools.cvaa import CvaaConfig, SyntheticPairs, load_rgb, train

    torch.set_num_threads(2)
    config = CvaaConfig.tiny()
    image = load_rgb(testdata / "satellite/spacenet6_rotterdam_rgb8_1m_derived.tif")
    return train(SyntheticPairs.from_config(image, config), config, steps=3, seed=1, val_size=16).checkpoint_bytes


def _overlay(page, name: str):  # type: ignore[no-untyped-def]
    return page.evaluate(f"Skymark.workspace.map.overlay('{name}')")


def test_the_box_and_the_footprint_follow_the_cursor_with_their_sources(  # type: ignore[no-untyped-def]
    scene_placed: Scene, testdata: Path, login, screenshot
) -> None:
    from annotator.processing.cvaa.checkpoints import checkpoint_activate, checkpoint_create
    from annotator.processing.graph import job_run

    # given the Saro scene (its map is its own first frame) with previews from a tiny active model,
    # the previews made significant and calibrated at 0.9, but the one at 2 s at 0.2 (under the 0.5 shown)
    checkpoint, _ = checkpoint_create(
        data=_tiny_checkpoint(testdata), name="tiny.pt", origin="uploaded", created_by=None
    )
    [job] = checkpoint_activate(checkpoint_id=checkpoint.id)
    job_run(job_id=job.id)
    previews = {p.keyframe.time_s: p for p in CvaaPreview.objects.select_related("keyframe")}
    assert sorted(previews) == [float(t) for t in range(10)]
    CvaaPreview.objects.update(p_value=1e-6, confidence=0.9)
    CvaaPreview.objects.filter(id=previews[2.0].id).update(confidence=0.2)

    page = login("ann")
    _open(page, scene_placed.id)

    placed = {p.keyframe.time_s: p for p in KeyframePlacement.objects.select_related("keyframe")}

    # at 0 s: the box (labelled with its calibrated probability) and the frame's placement (the whole
    # map, since the map is this very frame), labelled with its source and its error
    _seek(page, 0.0)
    box, footprint = _overlay(page, "cvaa"), _overlay(page, "footprint")
    assert _flat(box["quad"]) == pytest.approx(_flat(previews[0.0].quads[0]), abs=0.01)
    assert box["label"] == "CVAA p 0.90"
    assert footprint["label"] == "same frame exact · 1.00" and footprint["source"] == "same_frame"
    assert _flat(footprint["quad"]) == pytest.approx([0, 0, 1920, 0, 1920, 1080, 0, 1080])
    assert "CVAA boxes for 10/10 keyframes" in page.inner_text("#cvaa-status")
    screenshot(page, "cvaa-at-0s")

    # at 1.2 s: keyframe 1's box, and its placement by matching the frame on the map
    _seek(page, 1.2)
    assert _flat(_overlay(page, "cvaa")["quad"]) == pytest.approx(_flat(previews[1.0].quads[0]), abs=0.01)
    footprint = _overlay(page, "footprint")
    assert footprint["source"] == placed[1.0].source and footprint["source"] in ("matching", "chaining")
    assert _flat(footprint["quad"]) == pytest.approx(_flat(placed[1.0].quad), abs=0.01)
    screenshot(page, "cvaa-at-1s")

    # at 2 s: a box too unlikely to hit draws nothing; the placement stays
    _seek(page, 2.0)
    assert _overlay(page, "cvaa") is None
    assert _flat(_overlay(page, "footprint")["quad"]) == pytest.approx(_flat(placed[2.0].quad), abs=0.01)
    assert page.js_errors == []
