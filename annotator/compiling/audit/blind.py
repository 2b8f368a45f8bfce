"""The blind text-only baseline: can the key be predicted from the question and the options alone?
scikit-learn's multinomial logistic regression on a bag of words (question words, and option words
tagged with their position), each scene's items predicted by a model trained on other scenes
(GroupKFold by scene), scored against chance with an exact binomial test."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .figures import binomial_greater, clean
from .rows import Row

# Below this the folds hold a handful of items; the exact test still applies, but a model
# trained on three items says nothing.
MIN_BLIND_ITEMS = 6
MAX_FOLDS = 5
_TOKEN = re.compile(r"[a-z0-9]+")
_WHITESPACE_SEPARATED = r"\S+"  # document() has already split and tagged the words


@dataclass(frozen=True)
class Blind:
    accuracy: float
    chance: float
    n_test: int
    correct: int
    p_value: float  # exact one-sided binomial: this many right or more by guessing
    folds: int


def document(row: Row) -> str:
    """The words a text-only model sees: question words, and option words tagged with the option's
    position (so "stays away" at B is a feature of position B)."""
    words = [f"q_{t}" for t in _TOKEN.findall(row.question.lower())]
    words += [f"o{i}_{t}" for i, option in enumerate(row.options) for t in _TOKEN.findall(option.lower())]
    return " ".join(words)


def blind_reason(rows: Sequence[Row]) -> str | None:
    """Why the baseline cannot be run on these rows, or None when it can."""
    sizes = {len(r.options) for r in rows}
    if len(sizes) != 1 or min(sizes) < 2:
        return "options vary in number" if len(sizes) > 1 else "no options"
    if len({r.scene_id for r in rows}) < 2:
        return "needs items from two scenes or more"
    if len(rows) < MIN_BLIND_ITEMS:
        return f"needs {MIN_BLIND_ITEMS} items or more"
    return None


def blind_baseline(rows: Sequence[Row]) -> Blind | None:
    """Accuracy of predicting the key's position from text alone across scenes; None with the
    reason blind_reason gives."""
    if blind_reason(rows) is not None:
        return None
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.pipeline import make_pipeline

    docs = np.array([document(r) for r in rows], dtype=object)
    y = np.array([list(r.options).index(r.answer) for r in rows])
    scenes = np.array([str(r.scene_id) for r in rows])
    folds = min(MAX_FOLDS, len(set(scenes.tolist())))
    correct = 0
    for train, test in GroupKFold(n_splits=folds).split(docs, y, groups=scenes):
        if len(set(y[train].tolist())) == 1:  # one key position in training: that position is the model
            guesses = np.full(len(test), y[train][0])
        else:
            model = make_pipeline(
                CountVectorizer(token_pattern=_WHITESPACE_SEPARATED, lowercase=False, binary=True),
                LogisticRegression(C=1.0, max_iter=2000),
            )
            guesses = model.fit(docs[train], y[train]).predict(docs[test])
        correct += int((guesses == y[test]).sum())
    chance = 1 / len(rows[0].options)
    return Blind(
        accuracy=clean(correct / len(rows)),
        chance=clean(chance),
        n_test=len(rows),
        correct=correct,
        p_value=clean(binomial_greater(correct, len(rows), chance)),
        folds=folds,
    )
