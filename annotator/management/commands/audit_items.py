"""Audit the items per task: key positions, option texts and longest options as keys, yes/no
priors and wording, phrasing usage, items asking the same thing, and a blind text-only baseline
that should sit near chance. Exits 1 when a task is flagged and
--strict is given (for CI over a release candidate)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.compiling import selectors
from annotator.compiling.audit import ALPHA, TaskAudit, as_dict, audit_task
from annotator.compiling.views import DEFAULT_STATES
from annotator.models import Item


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--state", action="append", choices=Item.State.values, help="repeatable; default: open and approved"
        )
        parser.add_argument("--scene", action="append", type=int, help="repeatable: only these scene ids")
        parser.add_argument("--json", action="store_true", help="one JSON object per task instead of the table")
        parser.add_argument("--strict", action="store_true", help="exit with status 1 when any task is flagged")

    def handle(self, *args: Any, **opts: Any) -> None:
        rows = selectors.audit_rows(states=opts["state"] or DEFAULT_STATES, scene_ids=opts["scene"])
        tasks = [t for t in Item.Task.values if any(r.task == t for r in rows)]
        reports = []
        # The blind baseline trains a model per fold; on a large set that takes a while.
        for task in tqdm(tasks, desc="auditing", unit="task", disable=opts["json"] or len(rows) < 2000):
            reports.append(audit_task(task, [r for r in rows if r.task == task]))
        if opts["json"]:
            for report in reports:
                self.stdout.write(json.dumps(as_dict(report), ensure_ascii=False))
        else:
            self._table(reports)
        if opts["strict"] and any(r.flags for r in reports):
            raise CommandError("flagged: " + ", ".join(r.task for r in reports if r.flags))

    def _table(self, reports: list[TaskAudit]) -> None:
        columns = [("task", 24), ("items", 5), ("entropy", 7), ("p_mode", 6), ("KL", 6), ("longest", 7), ("phr", 4),
                   ("dup", 4), ("holds", 5), ("blind", 12)]  # fmt: skip
        self.stdout.write(" ".join(name.ljust(w) if name == "task" else name.rjust(w) for name, w in columns))
        for r in reports:
            pos = r.positions
            cells = [_fixed(pos.entropy, 3), _fixed(pos.p_mode, 3), _fixed(pos.kl_uniform, 3)] if pos else ["-"] * 3
            longest = _fixed(r.longest.share, 2) if r.longest else "-"
            holds = _fixed(r.prior.share, 2) if r.prior else "-"
            blind = f"{_fixed(r.blind.accuracy, 2)}/{_fixed(r.blind.chance, 2)}" if r.blind else "-"
            self.stdout.write(
                f"{r.task:<24} {r.items:>5} {cells[0]:>7} {cells[1]:>6} {cells[2]:>6} {longest:>7} "
                f"{len(r.phrasings):>4} {r.duplicate_items:>4} {holds:>5} {blind:>12}"
            )
            if r.blind is None and r.blind_missing:
                self.stdout.write(f"    blind baseline: {r.blind_missing}")
            for flag in r.flags:
                self.stdout.write(self.style.WARNING(f"    ! {flag}"))
        self.stdout.write(
            f"flags: exact tests at p < {ALPHA} (binomial for positions, option texts, longest keys, the fact's "
            "prior and the blind baseline; Fisher's exact test for wording and key)"
        )


def _fixed(value: float, digits: int) -> str:
    """Fixed-point text that never reads "-0.000" (a rounded negative zero)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text
