"""review.quality.agreement against published worked examples."""

from __future__ import annotations

import math

import pytest

from review.quality.agreement import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement


def test_cohen_kappa_of_the_textbook_yes_no_table() -> None:
    # 50 proposals, two readers: yes/yes 20, yes/no 5, no/yes 10, no/no 15 -> po 0.7, pe 0.5, kappa 0.4
    first = ["yes"] * 25 + ["no"] * 25
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(first, second) == pytest.approx(0.4)


def test_fleiss_kappa_of_fleiss_1971_example() -> None:
    # The classic example (14 raters, 10 subjects, 5 categories): kappa = 0.210
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[c for c, n in enumerate(row, 1) for _ in range(n)] for row in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.2099, abs=5e-4)


def test_krippendorff_alpha_of_krippendorffs_nominal_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", nominal data with missing
    # values (4 observers, 12 units; each list is one unit's values): alpha = 0.743
    units = [
        [1, 1, 1],
        [2, 2, 3, 2],
        [3, 3, 3, 3],
        [3, 3, 3, 3],
        [2, 2, 2, 2],
        [1, 2, 3, 4],
        [4, 4, 4, 4],
        [1, 1, 2, 1],
        [2, 2, 2, 2],
        [5, 5, 5],
        [1, 1],
        [3],
    ]
    assert krippendorff_alpha(units) == pytest.approx(0.743, abs=5e-4)


def test_percent_agreement_and_degenerate_inputs() -> None:
    assert percent_agreement([["a", "a"], ["a", "b"]]) == 0.5
    assert percent_agreement([["a"]]) is None
    assert fleiss_kappa([["a", "a"], ["a", "a"]]) is None  # one category: kappa is undefined
    assert cohen_kappa([], []) is None
    assert not math.isnan(krippendorff_alpha([["a", "b"], ["b", "b"]]) or 0.0)
