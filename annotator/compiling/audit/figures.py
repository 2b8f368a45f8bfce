"""The audit's figures and their exact tests (SciPy, imported when a figure is computed, so a web
process that never opens the audit never loads it).

Every test is exact and one-sided where the worry is one-sided (a position, a text or a model doing
better than chance), so it holds on a task of 12 items as well as on 2,000; a figure is flagged when
its p-value is below ALPHA, Bonferroni-corrected over the positions or texts tried."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .rows import Row

ALPHA = 0.05
# An option text is tested for being the key too often only when it is offered this often: fewer
# and no exact test can reach ALPHA after the correction.
MIN_TEXT_OFFERS = 5
_LETTER = re.compile(r"^[A-H]$")


def clean(value: float, digits: int | None = 4) -> float:
    """Rounded (unless digits is None), with negative zero made 0.0: round(-1e-17, 4) is -0.0,
    which prints "-0.000"."""
    return (value if digits is None else round(value, digits)) + 0.0


def position_spread(counts: Sequence[int]) -> tuple[float, float, float]:
    """(normalized entropy, p_mode, KL divergence from uniform in nats) of counts over positions:
    1, 1/k, 0 when even; 0, 1, ln k when always the same position. The sums of scipy.stats.entropy
    written out (equal up to the last bit): importing scipy.stats cost each release build almost a second."""
    total = sum(counts)
    k = len(counts)
    if total == 0 or k < 2:
        raise ValueError("a spread needs at least one count and two positions")
    p = [c / total for c in counts]
    seen = [x for x in p if x > 0]  # 0 log 0 = 0
    h = -sum(x * math.log(x) for x in seen) / math.log(k)
    kl = sum(x * math.log(x * k) for x in seen)
    return clean(min(1.0, max(0.0, h)), None), clean(max(p), None), clean(max(0.0, kl), None)


def binomial_greater(hits: int, n: int, chance: float) -> float:
    """Exact one-sided p-value of `hits` or more out of `n` at probability `chance`."""
    from scipy.stats import binomtest

    if n == 0 or chance >= 1:
        return 1.0
    return float(binomtest(hits, n, chance, alternative="greater").pvalue)


def binomial_two_sided(hits: int, n: int, chance: float) -> float:
    from scipy.stats import binomtest

    return 1.0 if n == 0 else float(binomtest(hits, n, chance).pvalue)


def bonferroni(p: float, tries: int) -> float:
    return min(1.0, p * max(tries, 1))


@dataclass(frozen=True)
class Bias:
    entropy: float  # normalized: 1 = keys spread evenly over the positions, 0 = always the same one
    p_mode: float  # share of the most common key position
    kl_uniform: float  # KL divergence from uniform, in nats
    mode_position: int  # 0 = A
    p_value: float  # exact binomial, the mode's count against 1/k, Bonferroni over the k positions
    p_uniform: float  # chi-square goodness of fit against even positions (a figure, not a flag)
    n: int


def position_bias(positions: Sequence[int], n_options: int) -> Bias:
    """Entropy, mode share and KL from uniform of key positions over `n_options` positions, with
    an exact test of the most common position."""
    from scipy.stats import chisquare

    if not positions or n_options < 2:
        raise ValueError("key positions need at least one item and two options")
    counts = [0] * n_options
    for position in positions:
        counts[position] += 1
    entropy, p_mode, kl = (clean(v) for v in position_spread(counts))
    mode = max(range(n_options), key=lambda k: counts[k])
    p = bonferroni(binomial_greater(counts[mode], len(positions), 1 / n_options), n_options)
    uniform = float(chisquare(counts).pvalue) if len(positions) > 1 else 1.0
    return Bias(entropy, p_mode, kl, mode, clean(p), clean(1.0 if math.isnan(uniform) else uniform), len(positions))


@dataclass(frozen=True)
class Share:
    """How often something is the key, against what chance gives, with its exact test."""

    what: str
    hits: int
    n: int
    chance: float
    p_value: float

    @property
    def share(self) -> float:
        return clean(self.hits / self.n) if self.n else 0.0


def longest_key(rows: Sequence[Row]) -> Share | None:
    """Items whose key is the strictly longest option, over the items whose options differ in
    length, against 1 / (options) each; None when none do (letters, yes/no)."""
    judged = [r for r in rows if len({len(o) for o in r.options}) > 1]
    if not judged:
        return None
    hits = sum(1 for r in judged if len(r.answer) > max(len(o) for o in r.options if o != r.answer))
    chance = sum(1 / len(r.options) for r in judged) / len(judged)
    return Share("longest option", hits, len(judged), clean(chance), clean(binomial_greater(hits, len(judged), chance)))


def key_texts(rows: Sequence[Row]) -> list[Share]:
    """For each option text offered in at least MIN_TEXT_OFFERS items (Region Interaction's "stays
    away", a compass sector, "yes"): how often it is the key, against the chance its items give
    it (1 / options each). Letters (lettered candidates) are positions, tested by position_bias.
    Sorted by p-value, Bonferroni-corrected over the texts tested."""
    offered: Counter[str] = Counter()
    keyed: Counter[str] = Counter()
    chance: dict[str, float] = {}
    for r in rows:
        for text in set(r.options):
            offered[text] += 1
            chance[text] = chance.get(text, 0.0) + 1 / len(r.options)
        keyed[r.answer] += 1
    tested = [t for t, n in offered.items() if n >= MIN_TEXT_OFFERS and not _LETTER.match(t)]
    out = [
        Share(
            t,
            keyed[t],
            offered[t],
            clean(chance[t] / offered[t]),
            clean(bonferroni(binomial_greater(keyed[t], offered[t], chance[t] / offered[t]), len(tested))),
        )
        for t in tested
    ]
    return sorted(out, key=lambda s: (s.p_value, -s.hits, s.what))


@dataclass(frozen=True)
class Prior:
    """Yes/no tasks: how often the fact holds (whichever way the question is asked); a model that
    knows only this scores max(share, 1 - share) without looking."""

    holds: int
    n: int
    p_value: float  # exact two-sided binomial against one half

    @property
    def share(self) -> float:
        return clean(self.holds / self.n) if self.n else 0.0


def fact_prior(rows: Sequence[Row]) -> Prior | None:
    truths = [r.truth for r in rows if r.truth is not None]
    if not truths:
        return None
    holds = sum(truths)
    return Prior(holds, len(truths), clean(binomial_two_sided(holds, len(truths), 0.5)))


@dataclass(frozen=True)
class Wording:
    """Yes/no tasks: keys by the wording's polarity. Balancing asks the questions whose fact holds the
    other way round more often when the prior is lopsided; then "not" in a question tells the key."""

    negative_no: int  # negatively worded items keyed "no"
    negative: int
    positive_yes: int  # positively worded items keyed "yes"
    positive: int
    p_value: float  # Fisher's exact test, two-sided, wording x key

    def describe(self) -> str:
        neg = f"negated questions are keyed 'no' in {self.negative_no} of {self.negative}"
        return f"{neg}, positive ones 'yes' in {self.positive_yes} of {self.positive}"


def wording_key(rows: Sequence[Row]) -> Wording | None:
    from scipy.stats import fisher_exact

    asked = [r for r in rows if r.polarity in ("positive", "negative") and r.answer in ("yes", "no")]
    negative = [r for r in asked if r.polarity == "negative"]
    positive = [r for r in asked if r.polarity == "positive"]
    if not negative or not positive:
        return None
    neg_no = sum(r.answer == "no" for r in negative)
    pos_yes = sum(r.answer == "yes" for r in positive)
    table = [[neg_no, len(negative) - neg_no], [len(positive) - pos_yes, pos_yes]]
    p = float(fisher_exact(table).pvalue)
    return Wording(neg_no, len(negative), pos_yes, len(positive), clean(min(1.0, p)))
