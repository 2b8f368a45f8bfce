"""Audit of a set of items, per task: can a model score above chance without looking? Pure
functions over plain rows (no database): key-position bias, option texts that are the key too
often, how often the key is the longest option, for yes/no tasks the fact's prior and whether the
wording's polarity tells the key, phrasing usage, items that ask the same thing, and a blind
text-only baseline (scikit-learn logistic regression on a bag of words, folds split by scene) that
should sit near chance. Each figure has an exact test; a flag means p < ALPHA (figures.py).

For other tools: `audit(rows_from_records(release_records))` gives a TaskAudit per task."""

from .blind import Blind, blind_baseline
from .effort import Effort, effort_by_task
from .figures import ALPHA, Bias, Prior, Share, Wording, clean, position_bias, position_spread
from .rows import Row, row_from_record, rows_from_records, truth_of
from .tasks import TaskAudit, as_dict, audit, audit_task, near_duplicates

__all__ = [
    "ALPHA",
    "Bias",
    "Blind",
    "Effort",
    "Prior",
    "Row",
    "Share",
    "TaskAudit",
    "Wording",
    "as_dict",
    "audit",
    "audit_task",
    "blind_baseline",
    "clean",
    "effort_by_task",
    "near_duplicates",
    "position_bias",
    "position_spread",
    "row_from_record",
    "rows_from_records",
    "truth_of",
]
