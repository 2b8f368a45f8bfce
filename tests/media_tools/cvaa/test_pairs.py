"""media_tools.cvaa.pairs and synth: the views the model trains on."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.cvaa import CvaaConfig, MixedPairs, Pair, RealPairs, SyntheticPairs, points_in_quad, window_for
from media_tools.cvaa.views import Pyramid, as_rgb8, prepare_frame


def test_window_for_a_footprint_is_centred_as_large_and_turned_to_the_nearest_rotation() -> None:
    # a 200 x 50 footprint whose up points east (90° clockwise): TL is at the north-east corner
    quad = np.array([[125, 0], [125, 200], [75, 200], [75, 0]], float)
    cx, cy, side, angle = window_for(quad, (0.0, 90.0, 180.0, 270.0))
    assert (cx, cy) == (100, 100) and side == pytest.approx(100) and angle == 90
    assert window_for(quad, (0.0, 180.0))[3] in (0.0, 180.0)


def test_pair_from_a_box_is_a_north_up_footprint() -> None:
    pair = Pair.from_box(np.zeros((4, 4, 3), np.uint8), [10, 20, 30, 60])
    assert pair.quad.tolist() == [[10, 20], [30, 20], [30, 60], [10, 60]]
    with pytest.raises(ValueError):
        Pair.from_box(pair.frame, [30, 20, 10, 60])


def test_synthetic_footprints_stay_in_their_region_and_frames_show_that_ground(rotterdam) -> None:
    # given synthetic pairs limited to the left half of Rotterdam, no tilt or colour change to compare pixels
    cfg = CvaaConfig.tiny(input_size=32, max_tilt=0.0)
    source = SyntheticPairs.from_config(rotterdam, cfg, region=(0, 0, 150, 300))
    rng = np.random.default_rng(3)

    # when footprints and pairs are drawn
    quads = [source.footprint(rng) for _ in range(50)]
    frames, sats = source.batch(rng, 6)

    # then every corner lies in the region, and batches are uint8 at the input size
    corners = np.concatenate(quads)
    assert corners[:, 0].min() >= 0 and corners[:, 0].max() <= 150 + 1e-9
    assert corners[:, 1].min() >= 0 and corners[:, 1].max() <= 300 + 1e-9
    assert frames.shape == sats.shape == (6, 32, 32, 3) and frames.dtype == sats.dtype == np.uint8
    # and a pseudo-frame's centre pixel is the ground at its footprint's centre
    pyramid = Pyramid(rotterdam)
    quad = source.footprint(np.random.default_rng(4))
    view = pyramid.sample_quad(quad, 64)
    cx, cy = quad.mean(axis=0)
    assert points_in_quad(np.array([[cx, cy]]), quad)[0]
    ground = pyramid.sample_view(cx, cy, 4, 0.0, 4).reshape(-1, 3).mean(axis=0)
    assert np.abs(view[30:34, 30:34].reshape(-1, 3).mean(axis=0) - ground).max() < 40


def test_real_pairs_jitter_and_mix_with_synthetic(rotterdam) -> None:
    cfg = CvaaConfig.tiny()
    frame = rotterdam[50:150, 50:200]
    real = RealPairs(rotterdam, [Pair.from_box(frame, [50, 50, 200, 150])], input_size=32, rotations=(0.0,))
    frames, sats = real.fixed()
    assert frames.shape == sats.shape == (1, 32, 32, 3)
    # the frame is squeezed whole to the input; the satellite view is the square of equal area around the
    # box's centre (122 px), sampled as a window would be
    assert np.array_equal(frames[0], prepare_frame(frame, 32))
    side = np.sqrt(150 * 100)
    square = rotterdam[round(100 - side / 2) : round(100 + side / 2), round(125 - side / 2) : round(125 + side / 2)]
    assert np.abs(sats[0].astype(int) - prepare_frame(square, 32).astype(int)).mean() < 8
    mixed = MixedPairs([real, SyntheticPairs.from_config(rotterdam, cfg)], [1, 3])
    f, s = mixed.batch(np.random.default_rng(0), 16)
    assert f.shape == s.shape == (16, 32, 32, 3)


def test_as_rgb8_handles_grey_16_bit_and_alpha() -> None:
    grey16 = np.arange(100, dtype=np.uint16).reshape(10, 10) * 500
    rgb = as_rgb8(grey16)
    assert rgb.shape == (10, 10, 3) and rgb.dtype == np.uint8 and rgb.min() == 0 and rgb.max() == 255
    rgba = np.full((2, 2, 4), 200, np.uint8)
    rgba[0, 0, 3] = 0
    out = as_rgb8(rgba)
    assert out[0, 0].tolist() == [0, 0, 0] and out[1, 1].tolist() == [200, 200, 200]
