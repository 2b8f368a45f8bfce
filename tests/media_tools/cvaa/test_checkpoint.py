"""media_tools.cvaa.checkpoint: one file with config, weights and their hash; bad files say so clearly."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import torch

from media_tools.cvaa import CheckpointError, CvaaEncoder, load_checkpoint, save_checkpoint
from media_tools.cvaa.checkpoint import weights_sha256
from media_tools.errors import MediaError

NOT_CVAA = r"^cvaa\.pt: not a CVAA checkpoint \("


def test_round_trip_keeps_config_weights_and_hash(tmp_path: Path, tiny_checkpoint: bytes, tiny) -> None:
    # given a trained tiny model loaded from bytes
    loaded = load_checkpoint(tiny_checkpoint)

    # when it is saved to a file and loaded again
    path = tmp_path / "cvaa.pt"
    digest = save_checkpoint(loaded.model, path)
    again = load_checkpoint(path)

    # then config, hash and embeddings are the same
    assert again.config == tiny == loaded.config
    assert digest == again.weights_sha256 == loaded.weights_sha256 == weights_sha256(again.model.state_dict())
    assert again.meta == {} and loaded.meta["steps"] == 3
    images = np.random.default_rng(0).integers(0, 256, (2, tiny.input_size, tiny.input_size, 3), dtype=np.uint8)
    a = CvaaEncoder(loaded.model, device="cpu").embed_views(images)
    b = CvaaEncoder(again.model, device="cpu").embed_views(images)
    assert np.array_equal(a, b)
    assert not list(tmp_path.glob(".*part"))


def _tampered(data: bytes) -> bytes:
    payload = torch.load(io.BytesIO(data), weights_only=True)
    name = sorted(payload["weights"])[0]
    payload["weights"][name] = payload["weights"][name] + 1e-3  # hash left as it was
    out = io.BytesIO()
    torch.save(payload, out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda d: d[: len(d) // 2], "cannot be read"),  # truncated upload
        (lambda d: b"\x00" * 64, "cannot be read"),
        (lambda d: b"PK\x03\x04 this is a zip header and nothing else", "cannot be read"),
        (_tampered, "do not match their recorded sha256"),
    ],
    ids=["truncated", "zeros", "bad-zip", "tampered-weights"],
)
def test_a_damaged_file_gives_a_clear_checkpoint_error(tmp_path: Path, tiny_checkpoint: bytes, damage, reason) -> None:
    path = tmp_path / "cvaa.pt"
    path.write_bytes(damage(tiny_checkpoint))
    with pytest.raises(CheckpointError, match=NOT_CVAA) as caught:
        load_checkpoint(path)
    assert reason in str(caught.value)
    assert isinstance(caught.value, MediaError)  # Django jobs record MediaError messages for a person


def test_another_torch_file_is_not_a_cvaa_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "cvaa.pt"
    torch.save({"state_dict": {"w": torch.zeros(2)}}, path)
    with pytest.raises(CheckpointError, match=NOT_CVAA + "no 'skymark-cvaa' format tag"):
        load_checkpoint(path)


def test_weights_that_do_not_fit_the_config_are_refused(tmp_path: Path, tiny_checkpoint: bytes) -> None:
    # given a checkpoint whose config says a wider model than its weights (hash recomputed, so it passes)
    payload = torch.load(io.BytesIO(tiny_checkpoint), weights_only=True)
    payload["config"]["width"] = 64
    path = tmp_path / "cvaa.pt"
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match=NOT_CVAA + "its weights do not fit its config"):
        load_checkpoint(path)


def test_a_missing_file_and_pickled_code_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match=r"^cvaa\.pt: no such checkpoint file"):
        load_checkpoint(tmp_path / "cvaa.pt")
    # a pickle that would call a function on load is not unpickled (weights_only)
    path = tmp_path / "cvaa.pt"
    torch.save({"format": "skymark-cvaa", "hook": print}, path)
    with pytest.raises(CheckpointError, match=NOT_CVAA + "cannot be read"):
        load_checkpoint(path)
