"""Evidence, significance and calibration of the retriever's top box (media_tools/cvaa/calibration.py),
at their boundary values: all hits, no hits, monotone, flat and peaked score maps."""

from __future__ import annotations

import math

import numpy as np
import pytest

from media_tools.cvaa import Calibration, evidence, fit_calibration, significant
from media_tools.cvaa.calibration import disjoint_count, p_value, reliability
from media_tools.cvaa.windows import window_boxes

# A 300 x 300 map cut into 60 px windows at half overlap: 81 boxes, 25 of them disjoint.
BOXES = window_boxes(300, 300, 60, 0.5)


def test_all_hits_give_platts_smoothed_rate_whatever_the_evidence() -> None:
    fitted = fit_calibration([0.1, 1.0, 3.0, 8.0], [True] * 4)
    assert fitted.b == pytest.approx(0.0, abs=1e-6)
    # (hits + 1) / (hits + 2): high but not a certainty after only four pairs
    assert fitted(0.0) == pytest.approx(5 / 6, abs=1e-6) and fitted(100.0) == pytest.approx(5 / 6, abs=1e-6)
    assert (fitted.pairs, fitted.hits) == (4, 4)


def test_no_hits_give_one_over_misses_plus_two() -> None:
    fitted = fit_calibration([0.5, 2.0, 4.0], [False] * 3)
    assert fitted(10.0) == pytest.approx(1 / 5, abs=1e-6) and fitted.b == pytest.approx(0.0, abs=1e-6)
    assert fitted.reliability == [{"low": 0.2, "high": 0.4, "pairs": 3, "predicted": 0.2, "observed": 0.0}]


def test_more_evidence_never_lowers_the_probability() -> None:
    # given hits that grow likelier with the margin
    rng = np.random.default_rng(0)
    z = rng.uniform(0, 6, 400)
    hit = rng.random(400) < 1 / (1 + np.exp(-(z - 3) * 1.5))
    fitted = fit_calibration(z, hit)
    # then the curve rises, runs from mostly-miss to mostly-hit, and matches the observed rate per bin
    grid = fitted.probability(np.linspace(0, 6, 50))
    assert fitted.b > 0.8 and np.all(np.diff(grid) >= 0) and grid[0] < 0.1 and grid[-1] > 0.9
    assert sum(r["pairs"] for r in fitted.reliability) == 400
    assert fitted.ece < 0.08 and fitted.brier < 0.2
    # and evidence that points the wrong way is no evidence: the base rate for every margin
    reversed_fit = fit_calibration(z, ~hit)
    assert reversed_fit.b == 0.0
    assert reversed_fit(0.0) == reversed_fit(6.0) == pytest.approx((~hit).mean(), abs=0.01)


def test_calibration_survives_its_dict_and_refuses_another_evidence() -> None:
    fitted = fit_calibration([0.0, 1.0, 2.0, 3.0], [False, False, True, True])
    again = Calibration.from_dict(fitted.to_dict())
    assert again(1.5) == pytest.approx(fitted(1.5)) and again.reliability == fitted.reliability
    with pytest.raises(ValueError, match="not read here"):
        Calibration.from_dict({**fitted.to_dict(), "evidence": "cosine"})
    with pytest.raises(ValueError, match="not a calibration"):
        Calibration.from_dict({"a": 1.0})


def test_reliability_bins_hold_what_fell_in_them() -> None:
    rows = reliability(np.array([0.05, 0.1, 0.5, 0.95, 1.0]), np.array([False, True, True, True, False]))
    assert [(r["low"], r["pairs"], r["observed"]) for r in rows] == [(0.0, 2, 0.5), (0.4, 1, 1.0), (0.8, 2, 0.5)]


def test_a_flat_score_map_is_not_significant_and_a_peaked_one_is() -> None:
    rng = np.random.default_rng(1)
    flat = 0.94 + rng.normal(0, 0.003, len(BOXES))  # every window alike: the model is guessing
    peaked = flat.copy()
    peaked[40] += 0.05  # one place stands out by ~17 robust standard deviations
    places = disjoint_count(BOXES)
    assert places == 25
    flat_ev, peak_ev = evidence(flat, BOXES, places=places), evidence(peaked, BOXES, places=places)
    assert not significant(flat_ev, alpha=0.01) and flat_ev.p_value > 0.05
    assert significant(peak_ev, alpha=0.01) and peak_ev.p_value < 1e-6
    # the rival is the best box that does not overlap the top one, not its overlapping neighbour
    assert peak_ev.top == pytest.approx(peaked[40])
    apart = [i for i in range(len(BOXES)) if i != 40 and not _overlaps(BOXES[i], BOXES[40])]
    assert peak_ev.rival == pytest.approx(peaked[apart].max())


def _overlaps(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]))


def test_equal_scores_and_single_places_are_never_significant() -> None:
    assert evidence(np.full(len(BOXES), 0.9), BOXES).p_value == 1.0
    assert p_value(5.0, 1) == 1.0 and p_value(0.0, 100) == 1.0
    assert p_value(1.0, 100) == pytest.approx(math.exp(-math.sqrt(2 * math.log(100))))
    one = evidence(np.array([0.9]), np.array([[0, 0, 10, 10]]))
    assert (one.margin_z, one.p_value) == (0.0, 1.0)


def test_the_test_holds_its_level_when_no_place_is_special() -> None:
    # given 1000 score maps drawn i.i.d. (the null hypothesis: the model is guessing everywhere)
    rng = np.random.default_rng(2)
    places = disjoint_count(BOXES)
    p = np.array([evidence(rng.normal(0.94, 0.01, len(BOXES)), BOXES, places=places).p_value for _ in range(1000)])
    # then it rejects about as often as its level says, never much more (it may be conservative)
    assert (p < 0.05).mean() <= 0.06 and (p < 0.01).mean() <= 0.015
    assert (p < 0.2).mean() > 0.1  # and it is not blind: p-values spread over [0, 1]
