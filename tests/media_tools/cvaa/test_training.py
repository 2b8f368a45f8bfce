"""media_tools.cvaa.training: a few steps on self-supervised pairs make the contrastive loss fall."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from media_tools.cvaa import CvaaConfig, CvaaModel, SyntheticPairs, info_nce, load_checkpoint, train
from media_tools.cvaa.encoder import CvaaEncoder


def _held_out_loss(model: CvaaModel, frames: np.ndarray, sats: np.ndarray) -> float:
    encoder = CvaaEncoder(model, device="cpu")
    uav = torch.from_numpy(encoder.embed_frames(frames))
    sat = torch.from_numpy(encoder.embed_views(sats))
    return float(info_nce(uav, sat, model.logit_scale.detach()))


def test_training_makes_the_loss_fall_and_keeps_the_best_checkpoint(tmp_path: Path, rotterdam, tiny) -> None:
    # given self-supervised pairs from the top of the image and held-out pairs from its bottom strip
    train_pairs = SyntheticPairs.from_config(rotterdam, tiny, region=(0, 0, 300, 220))
    held = SyntheticPairs.from_config(rotterdam, tiny, region=(0, 220, 300, 300))
    frames, sats = held.batch(np.random.default_rng(99), 32)
    torch.manual_seed(7)
    before = _held_out_loss(CvaaModel(tiny), frames, sats)  # train() builds its model after the same seed
    reports: list[float] = []
    lines: list[str] = []

    # when the tiny model trains for 40 steps
    result = train(
        train_pairs, tiny, steps=40, seed=7, val_pairs=(frames, sats),
        out=tmp_path / "cvaa.pt", progress=reports.append, log=lines.append,
    )  # fmt: skip

    # then the training loss falls, and so does the loss on pairs it never saw
    losses = [h["loss"] for h in result.history]
    assert np.mean(losses[-8:]) < np.mean(losses[:8]) - 0.1
    kept = load_checkpoint(tmp_path / "cvaa.pt")
    assert _held_out_loss(kept.model, frames, sats) < before - 0.05
    # and the kept checkpoint is the best evaluated one, by validation recall@1
    evaluated = {int(h["step"]): h["val_recall_at_1"] for h in result.history if "val_recall_at_1" in h}
    assert sorted(evaluated) == list(range(tiny.eval_every, 41, tiny.eval_every))
    assert result.best_recall_at_1 == max(evaluated.values()) == evaluated[result.best_step]
    assert kept.weights_sha256 == result.weights_sha256 and kept.meta["best_step"] == result.best_step
    assert result.device == "cpu" and result.batch_size == tiny.batch_size
    assert reports[-1] == 1.0 and len(reports) == 40
    assert lines[0].startswith("training on cpu") and any("loss" in line for line in lines)


def test_the_same_seed_gives_the_same_run(rotterdam) -> None:
    config = CvaaConfig.tiny(depth=1, batch_size=8, eval_every=2)
    source = SyntheticPairs.from_config(rotterdam, config)
    a = train(source, config, steps=3, seed=5, val_size=8)
    b = train(source, config, steps=3, seed=5, val_size=8)
    c = train(source, config, steps=3, seed=6, val_size=8)
    assert [h["loss"] for h in a.history] == [h["loss"] for h in b.history]
    assert a.weights_sha256 == b.weights_sha256 != c.weights_sha256
