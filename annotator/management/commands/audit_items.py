"""Audit the items per task: key positions, longest-option keys, phrasing usage, near-duplicates
and a blind text-only baseline that should sit near chance. Exits 1 when a task is flagged and
--strict is given (for CI over a release candidate)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.compiling import selectors
from annotator.compiling.audit import as_dict, audit_task
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

    def _table(self, reports: list[Any]) -> None:
        columns = [("task", 24), ("items", 5), ("entropy", 7), ("p_mode", 6), ("KL", 6), ("longest", 7), ("phr", 4),
                   ("dup", 4), ("holds", 5), ("blind", 12)]  # fmt: skip
        self.stdout.write(" ".join(name.ljust(w) if name == "task" else name.rjust(w) for name, w in columns))
        for r in reports:
            pos = r.positions
            cells = (
                [f"{pos.entropy:7.3f}", f"{pos.p_mode:6.3f}", f"{pos.kl_uniform:6.3f}"]
                if pos
                else ["      -", "     -", "     -"]
            )
            longest = f"{r.longest_key_share:7.2f}" if r.longest_key_share is not None else "      -"
            blind = f"{r.blind.accuracy:.2f}/{r.blind.chance:.2f}" if r.blind else "-"
            holds = f"{r.truth_share:.2f}" if r.truth_share is not None else "-"
            counts = f"{len(r.phrasings):>4} {r.duplicate_items:>4} {holds:>5}"
            self.stdout.write(f"{r.task:<24} {r.items:>5} {' '.join(cells)} {longest} {counts} {blind:>12}")
            for flag in r.flags:
                self.stdout.write(self.style.WARNING(f"    ! {flag}"))
