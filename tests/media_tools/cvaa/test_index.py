"""media_tools.cvaa.index: window embeddings are cached per (image, checkpoint, layout) and reused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from media_tools.cvaa import CvaaEncoder, WindowIndex, WindowSpec, box_iou, make_windows

SPEC = WindowSpec(sizes=(0.25, 0.5), overlap=0.5, rotations=(0.0, 90.0))


@pytest.fixture
def encoder(tiny_checkpoint: bytes) -> CvaaEncoder:
    return CvaaEncoder.from_checkpoint(tiny_checkpoint, device="cpu")


def test_the_second_build_reads_the_cache_and_embeds_nothing(tmp_path: Path, rotterdam, encoder) -> None:
    # given an index built once with a cache folder
    first = WindowIndex.build(rotterdam, encoder, spec=SPEC, cache_dir=tmp_path)
    windows = len(make_windows(300, 300, SPEC))
    assert first.stats.embedded_windows == encoder.stats.windows_embedded == windows
    assert not first.stats.loaded_from_cache and first.stats.cache_path is not None
    assert first.stats.cache_path.is_file() and len(list(tmp_path.iterdir())) == 1

    # when the same image is indexed again with the same checkpoint
    second = WindowIndex.build(rotterdam.copy(), encoder, spec=SPEC, cache_dir=tmp_path)

    # then no window is embedded again and the embeddings are the same
    assert second.stats.loaded_from_cache and second.stats.embedded_windows == 0
    assert encoder.stats.windows_embedded == windows
    assert np.array_equal(second.embeddings, first.embeddings)
    assert np.array_equal(second.windows.boxes, first.windows.boxes)


def test_a_changed_checkpoint_image_or_layout_rebuilds(tmp_path: Path, rotterdam, encoder, other_checkpoint) -> None:
    WindowIndex.build(rotterdam, encoder, spec=SPEC, cache_dir=tmp_path)
    other = CvaaEncoder.from_checkpoint(other_checkpoint, device="cpu")
    changed = rotterdam.copy()
    changed[0, 0, 0] ^= 1  # one bit of one pixel

    by_model = WindowIndex.build(rotterdam, other, spec=SPEC, cache_dir=tmp_path)
    by_image = WindowIndex.build(changed, encoder, spec=SPEC, cache_dir=tmp_path)
    by_layout = WindowIndex.build(rotterdam, encoder, spec=WindowSpec(sizes=(0.5,)), cache_dir=tmp_path)

    for index in (by_model, by_image, by_layout):
        assert not index.stats.loaded_from_cache and index.stats.embedded_windows == len(index.windows) > 0
    assert by_model.weights_sha256 != by_image.weights_sha256 and by_model.image_sha256 != by_image.image_sha256
    assert len(list(tmp_path.glob("*.npz"))) == 4


def test_a_damaged_cache_file_is_rebuilt(tmp_path: Path, rotterdam, encoder) -> None:
    first = WindowIndex.build(rotterdam, encoder, spec=SPEC, cache_dir=tmp_path)
    assert first.stats.cache_path is not None
    first.stats.cache_path.write_bytes(b"not an npz")
    again = WindowIndex.build(rotterdam, encoder, spec=SPEC, cache_dir=tmp_path)
    assert again.stats.embedded_windows == len(again.windows) and not again.stats.loaded_from_cache
    assert WindowIndex.load(first.stats.cache_path).stats.loaded_from_cache


def test_a_frame_costs_one_forward_pass_and_gets_distinct_ranked_boxes(rotterdam, encoder) -> None:
    # given an index (no cache folder: nothing written)
    index = WindowIndex.build(rotterdam, encoder, spec=SPEC)
    passes, embedded = encoder.stats.forward_passes, encoder.stats.windows_embedded

    # when a frame is located
    frame = rotterdam[40:200, 60:260]
    answer = index.locate(frame, encoder, top_k=5)

    # then it cost one forward pass and no window embedding
    assert encoder.stats.forward_passes == passes + 1 and encoder.stats.windows_embedded == embedded
    # and it gives 5 boxes, best first, no two overlapping by more than half, with their rotated quads
    assert answer.found and answer.boxes.shape == (5, 4) and answer.quads.shape == (5, 4, 2)
    assert np.all(np.diff(answer.scores) <= 0)
    ious = box_iou(answer.boxes, answer.boxes)
    assert ious[~np.eye(5, dtype=bool)].max() <= 0.5
    # and the scores are the cosine similarities of frame and window embeddings
    emb = encoder.embed_frames([frame])[0]
    scores, _ = index.box_scores(emb)
    assert answer.scores[0] == pytest.approx(scores.max(), abs=1e-6)
    # and the heatmap's best cell holds the best score, on the best box
    heat = answer.heatmap
    assert heat is not None and heat.shape == (64, 64) and heat.max() == pytest.approx(answer.scores[0], abs=1e-6)
    row, col = np.unravel_index(heat.argmax(), heat.shape)
    centre = (np.array([col, row]) + 0.5) * answer.heatmap_cell_px
    x1, y1, x2, y2 = answer.boxes[0]
    assert x1 <= centre[0] <= x2 and y1 <= centre[1] <= y2
    assert answer.to_dict()["boxes"][0] == pytest.approx(answer.boxes[0].tolist(), abs=0.01)


def test_an_index_refuses_a_frame_from_another_model(rotterdam, encoder, other_checkpoint) -> None:
    index = WindowIndex.build(rotterdam, encoder, spec=SPEC)
    with pytest.raises(ValueError, match="other weights"):
        index.locate(rotterdam[:100, :100], CvaaEncoder.from_checkpoint(other_checkpoint, device="cpu"))
