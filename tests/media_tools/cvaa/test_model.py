"""media_tools.cvaa.model: embeddings, GeM, adapters, and the symmetric InfoNCE loss."""

from __future__ import annotations

import math

import pytest
import torch

from media_tools.cvaa import CvaaConfig, CvaaModel, info_nce
from media_tools.cvaa.model import GeM


def _unit(rows: int, dim: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.nn.functional.normalize(torch.randn(rows, dim, generator=g), dim=1)


def test_info_nce_is_symmetric_in_its_two_views() -> None:
    uav, sat = _unit(8, 16, 0), _unit(8, 16, 1)
    scale = torch.tensor(math.log(10.0))
    assert torch.isclose(info_nce(uav, sat, scale), info_nce(sat, uav, scale))


def test_info_nce_is_lower_for_matched_pairs_than_for_shuffled_ones() -> None:
    # given satellite embeddings and frame embeddings that are noisy copies of them
    sat = _unit(16, 32, 2)
    uav = torch.nn.functional.normalize(sat + 0.3 * _unit(16, 32, 3), dim=1)
    scale = torch.tensor(math.log(20.0))

    # when the pairs are kept in order or shuffled
    matched = info_nce(uav, sat, scale)
    shuffled = info_nce(uav, sat[torch.randperm(16, generator=torch.Generator().manual_seed(4))], scale)

    # then matching lowers the loss well below chance (log 16) and shuffling raises it above
    assert matched < 0.5 < math.log(16) < shuffled


def test_info_nce_equals_the_hand_computed_value_for_two_pairs() -> None:
    uav = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    sat = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    loss = info_nce(uav, sat, torch.tensor(0.0))  # scale 1: logits are the cosines
    expected = -math.log(math.e / (math.e + 1))
    assert math.isclose(loss.item(), expected, rel_tol=1e-6)


def test_both_views_give_unit_embeddings_of_the_configured_size() -> None:
    cfg = CvaaConfig.tiny()
    model = CvaaModel(cfg).eval()
    images = torch.randint(0, 256, (3, cfg.input_size, cfg.input_size, 3), dtype=torch.uint8)
    with torch.no_grad():
        sat, uav = model.encode_sat(images), model.encode_uav(images)
    assert sat.shape == uav.shape == (3, cfg.embed_dim)
    assert torch.allclose(sat.norm(dim=1), torch.ones(3), atol=1e-5)
    assert torch.allclose(uav.norm(dim=1), torch.ones(3), atol=1e-5)
    # the two views use different poolings and adapters: the same image does not give the same vector
    assert not torch.allclose(sat, uav, atol=1e-3)


def test_gem_lies_between_the_mean_and_the_max() -> None:
    tokens = torch.rand(2, 10, 4) + 0.1
    pooled = GeM(3.0)(tokens)
    assert torch.all(pooled >= tokens.mean(dim=1) - 1e-6) and torch.all(pooled <= tokens.amax(dim=1) + 1e-6)
    assert torch.allclose(GeM(1.0)(tokens), tokens.mean(dim=1), atol=1e-6)


def test_adapters_start_as_the_identity_and_the_temperature_is_clamped() -> None:
    model = CvaaModel(CvaaConfig.tiny())
    x = torch.randn(4, model.config.embed_dim)
    assert torch.equal(model.adapter_sat(x), x) and torch.equal(model.adapter_uav(x), x)
    with torch.no_grad():
        model.logit_scale.fill_(10.0)
    model.clamp_logit_scale()
    assert model.logit_scale.exp().item() == pytest.approx(model.config.max_logit_scale)
