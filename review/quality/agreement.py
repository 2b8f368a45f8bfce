"""Agreement between reviewers, from statsmodels and krippendorff (imported when a figure is
computed: the dashboard's URL configuration imports this module, and a web process should not load
statsmodels, SciPy and pandas before a page needs them).

Ratings are given per item as the list of labels its raters chose (a decision, or a blind answer).
Items rated by fewer than two raters say nothing about agreement and are left out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal


def _categories(ratings: Sequence[Sequence[Any]]) -> list[Any]:
    return sorted({str(r) for item in ratings for r in item})


def percent_agreement(ratings: Sequence[Sequence[Any]]) -> float | None:
    """Share of rater pairs on the same item that chose the same label."""
    agree = pairs = 0
    for item in ratings:
        labels = [str(r) for r in item]
        for i in range(len(labels)):
            for j in range(i + 1, len(labels)):
                pairs += 1
                agree += labels[i] == labels[j]
    return agree / pairs if pairs else None


def cohen_kappa(first: Sequence[Any], second: Sequence[Any]) -> float | None:
    """Cohen's kappa of two raters who labelled the same items in the same order."""
    if len(first) != len(second) or not first:
        return None
    cats = sorted({str(x) for x in [*first, *second]})
    if len(cats) < 2:
        return None
    import numpy as np
    from statsmodels.stats import inter_rater

    table = np.zeros((len(cats), len(cats)))
    for a, b in zip(first, second, strict=True):
        table[cats.index(str(a)), cats.index(str(b))] += 1
    return float(inter_rater.cohens_kappa(table, return_results=False))


def fleiss_kappa(ratings: Sequence[Sequence[Any]]) -> float | None:
    """Fleiss' kappa; items need the same number of raters, so the most common count is used."""
    rated = [item for item in ratings if len(item) >= 2]
    if not rated:
        return None
    counts = [len(i) for i in rated]
    n = max(set(counts), key=counts.count)
    rated = [item for item in rated if len(item) == n]
    cats = _categories(rated)
    if len(cats) < 2:
        return None
    import numpy as np
    from statsmodels.stats import inter_rater

    table = np.array([[sum(str(r) == c for r in item) for c in cats] for item in rated])
    return float(inter_rater.fleiss_kappa(table, method="fleiss"))


def krippendorff_alpha(
    ratings: Sequence[Sequence[Any]], *, level: Literal["nominal", "ordinal", "interval", "ratio"] = "nominal"
) -> float | None:
    """Krippendorff's alpha; items may have any number of raters (missing ratings are allowed)."""
    rated = [item for item in ratings if len(item) >= 2]
    if not rated:
        return None
    cats = _categories(rated)
    if len(cats) < 2:
        return None
    import krippendorff
    import numpy as np

    width = max(len(item) for item in rated)
    # reliability data: raters x units, NaN where a unit has fewer raters
    data = np.full((width, len(rated)), np.nan)
    for unit, item in enumerate(rated):
        for rater, label in enumerate(item):
            data[rater, unit] = cats.index(str(label)) if level == "nominal" else float(label)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
