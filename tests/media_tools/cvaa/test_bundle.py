"""media_tools.cvaa.bundle: a training set written as plain files reads back as the same mix (the same
batches, up to the frames' JPEG), and training on it from the command line writes a checkpoint that
records where and how fast it trained."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from media_tools.cvaa import CvaaConfig, MixedPairs, Pair, RealPairs, SyntheticPairs, load_checkpoint
from media_tools.cvaa.bundle import Bundle, SourceSpec, bundle_read, bundle_write, main


@pytest.fixture
def bundle(rotterdam: np.ndarray, tiny: CvaaConfig) -> Bundle:
    crops = [(20, 30, 120, 130), (150, 40, 270, 160), (60, 170, 200, 290)]
    pairs = [Pair.from_box(np.ascontiguousarray(rotterdam[y1:y2, x1:x2]), (x1, y1, x2, y2)) for x1, y1, x2, y2 in crops]
    val = RealPairs(rotterdam, pairs, input_size=tiny.input_size, rotations=tiny.rotations).fixed()
    sources = [
        SourceSpec(kind="synthetic", image="7", weight=0.75),
        SourceSpec(kind="real", image="7", weight=0.25, pairs=pairs),
    ]
    meta = {"seed": 4, "split": {"train_scenes": [1], "held_out_scenes": [2]}}
    return Bundle(config=tiny, seed=4, images={"7": rotterdam}, sources=sources, val=val, meta=meta)


def _mix(b: Bundle) -> MixedPairs:
    kw = {"input_size": b.config.input_size, "rotations": b.config.rotations}
    real = RealPairs(b.images["7"], list(b.sources[1].pairs), **kw)  # type: ignore[arg-type]
    return MixedPairs([SyntheticPairs.from_config(b.images["7"], b.config), real], [0.75, 0.25])


def test_a_bundle_reads_back_as_the_same_mix(tmp_path: Path, bundle: Bundle) -> None:
    # when the bundle is written and read back
    bundle_write(tmp_path, bundle)
    back = bundle_read(tmp_path)

    # then the config, seed, meta, images and validation set are exact
    assert (back.config, back.seed, back.meta) == (bundle.config, 4, bundle.meta)
    assert np.array_equal(back.images["7"], bundle.images["7"])
    assert all(np.array_equal(a, b) for a, b in zip(back.val, bundle.val, strict=True))
    # and its source draws the same batches as the mix it was made from: the same pairs chosen and
    # warped, the frames within JPEG's error
    frames, sats = back.source().batch(np.random.default_rng([4, 1]), 32)
    want_frames, want_sats = _mix(bundle).batch(np.random.default_rng([4, 1]), 32)
    assert np.array_equal(sats, want_sats)
    assert np.abs(frames.astype(int) - want_frames).mean() < 3.0


def test_a_folder_that_is_no_bundle_is_named(tmp_path: Path, bundle: Bundle) -> None:
    with pytest.raises(ValueError, match="not a training bundle"):
        bundle_read(tmp_path)
    bundle_write(tmp_path, bundle)
    doc = json.loads((tmp_path / "bundle.json").read_text())
    (tmp_path / "bundle.json").write_text(json.dumps({**doc, "version": 99}))
    with pytest.raises(ValueError, match="bundle version 99"):
        bundle_read(tmp_path)
    (tmp_path / "bundle.json").write_text(json.dumps(doc))
    (tmp_path / "images" / "7.png").unlink()
    with pytest.raises(ValueError, match=r"7\.png: missing"):
        bundle_read(tmp_path)


def test_training_on_a_bundle_records_the_device_the_rate_and_the_split(
    tmp_path: Path, bundle: Bundle, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle_write(tmp_path / "set", bundle)

    main([str(tmp_path / "set"), "--device", "cpu", "--steps", "6", "--out", str(tmp_path / "cvaa.pt")])

    ckpt = load_checkpoint(tmp_path / "cvaa.pt")
    meta = ckpt.meta
    assert (meta["trained_from"], meta["steps"], meta["device"], meta["seed"]) == ("bundle", 6, "cpu", 4)
    assert meta["split"] == bundle.meta["split"] and "CPU" in meta["device_name"]
    assert meta["steps_per_s"] > 0 and meta["batch_size"] == bundle.config.batch_size
    assert ckpt.config == bundle.config
    assert "wrote" in capsys.readouterr().out
