"""Benchmark integrity: build a benchmark from the demo data as a team would, release it, and check
that nothing but the media gives the answers away.

In a throwaway data folder: the demo scenes imported as `make run` imports them (`seed_demo`) and
processed in this process; annotators draw marks through the marking services on each image's
valid-data area (regions, key locations, target instances, timed trajectories; labels from the
label set; the facts each task reads, yes/no facts both ways), compile every task's items in
"compile all" batches and in single compiles, submit them; two reviewers answer each blind and
decide (some reject, the author revises and resubmits; disagreements go to the adjudicator); an
admin builds a release. The released canonical JSONL is then audited per task with the audit's own
functions (annotator.compiling.audit): key-position entropy, p_mode, KL from uniform, how often the
key is the longest option, and the text-only baseline against chance.

Goal (per task with at least 2k items, k = its number of options): normalized entropy of key
positions >= 0.99 and p_mode <= 1/k + 0.03. Exits 1 when a task misses it.

Usage: SECRET_KEY=bench .venv/bin/python bench/integrity.py [--items-per-task N] [--seed S] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.team import OPTIONS, Tally, options_of  # noqa: E402  (Django-free; the rest after setup)

ENTROPY_GOAL = 0.99
P_MODE_SLACK = 0.03


def setup(data: Path) -> None:
    """Django on the embedded default in a throwaway data folder, migrated; jobs are run here."""
    os.environ.update(SKYMARK_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + os.urandom(8).hex())
    for name in ("DATABASE_URL", "REDIS_URL", "MEDIA_ROOT", "CELERY_TASK_ALWAYS_EAGER"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


@dataclass(frozen=True)
class Verdict:
    task: str
    items: int
    k: int
    applies: bool  # at least 2k items
    passed: bool
    why: str


def judge(report: Any) -> Verdict:
    """The goal for one task's audit: entropy >= 0.99 and p_mode <= 1/k + 3 % once it has >= 2k items."""
    k = options_of(report.task)
    applies = bool(k) and report.items >= 2 * k
    if not applies:
        return Verdict(report.task, report.items, k, False, True, "no positions" if not k else f"fewer than {2 * k}")
    pos = report.positions
    if pos is None:
        return Verdict(report.task, report.items, k, True, False, "no key positions in the released records")
    misses = []
    if pos.entropy < ENTROPY_GOAL:
        misses.append(f"entropy {pos.entropy:.3f} < {ENTROPY_GOAL}")
    if pos.p_mode > 1 / k + P_MODE_SLACK + 1e-9:
        misses.append(f"p_mode {pos.p_mode:.3f} > {1 / k + P_MODE_SLACK:.3f}")
    return Verdict(report.task, report.items, k, True, not misses, "; ".join(misses))


@dataclass
class Result:
    reports: list[Any]
    verdicts: list[Verdict]
    tally: Tally
    records: list[dict[str, Any]]

    @property
    def passed(self) -> bool:
        return all(v.passed for v in self.verdicts)


def build(
    *, items_per_task: int = 32, seed: int = 0, tasks: list[str] | None = None, kinds: list[str] | None = None
) -> Result:
    """The whole path on the configured database and media: import, process (every job, or the
    `kinds` given), mark, compile, submit (every task, or `tasks`), review, release, audit the
    released records."""
    from django.contrib.auth import get_user_model

    from annotator.compiling.audit import audit_task, rows_from_records
    from bench.team.compiling import compile_items, quotas
    from bench.team.releasing import release
    from bench.team.reviewing import review_all, submit
    from bench.team.scenes import import_demo

    rng = random.Random(seed)
    tally = Tally()
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        tally.seconds[name] = round(now - clock, 2)
        clock = now

    scenes = import_demo(kinds=kinds)
    admin = get_user_model().objects.get(username="admin")
    lap("import + process")
    quota = quotas(items_per_task, tasks)
    drafts = compile_items(scenes=scenes, admin=admin, quota=quota, rng=rng, tally=tally)
    lap("mark + compile")
    submit(drafts=drafts, quota=quota, rng=rng, tally=tally)
    review_all(rng=rng, tally=tally)
    lap("submit + review")
    records = release(admin=admin)
    tally.released = len(records)
    lap("release")
    rows = rows_from_records(records)
    reports = [audit_task(task, [r for r in rows if r.task == task]) for task in OPTIONS
               if any(r.task == task for r in rows)]  # fmt: skip
    lap("audit")
    return Result(reports, [judge(r) for r in reports], tally, records)


def table(result: Result) -> str:
    """One row per task: items, key-position entropy, p_mode (and the goal's bound), KL from uniform,
    longest-option rate against what a fair set gives, text-only baseline accuracy against chance
    (with its exact p), the goal."""
    head = (f"{'task':<24}{'items':>6}{'k':>3}{'entropy':>9}{'p_mode':>8}{'bound':>7}{'KL':>7}"
            f"{'longest/fair':>14}{'text-only/chance (p)':>24}  goal")  # fmt: skip
    lines = [head, "-" * len(head)]
    for report, v in zip(result.reports, result.verdicts, strict=True):
        pos, longest, blind = report.positions, report.longest, report.blind
        cells = f"{abs(pos.entropy):>9.3f}{pos.p_mode:>8.3f}" if pos else f"{'-':>9}{'-':>8}"
        bound = f"{1 / v.k + P_MODE_SLACK:>7.3f}" if v.k else f"{'-':>7}"
        kl = f"{pos.kl_uniform:>7.3f}" if pos else f"{'-':>7}"
        share = f"{longest.hits / longest.n:.2f}/{longest.chance:.2f}" if longest and longest.n else "-"
        text = f"{blind.accuracy:.2f}/{blind.chance:.2f} ({blind.p_value:.2f})" if blind else "-"
        verdict = ("PASS" if v.passed else "FAIL: " + v.why) if v.applies else f"n/a ({v.why})"
        lines.append(f"{v.task:<24}{v.items:>6}{v.k or '-':>3}{cells}{bound}{kl}{share:>14}{text:>24}  {verdict}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items-per-task", type=int, default=32, help="items submitted per task (at least 2k)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--task", action="append", choices=list(OPTIONS), help="repeatable; default: all 12 tasks")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skymark-integrity-bench-") as tmp:
        setup(Path(tmp))
        from annotator.compiling.audit import as_dict

        result = build(items_per_task=args.items_per_task, seed=args.seed, tasks=args.task)
        t = result.tally
        if args.json:
            print(json.dumps({
                "passed": result.passed,
                "tasks": [{**as_dict(r), "goal": v.__dict__} for r, v in zip(result.reports, result.verdicts,
                                                                            strict=True)],
                "build": t.__dict__,
            }, ensure_ascii=False))  # fmt: skip
        else:
            print(
                f"demo scenes: 2; annotators {t.annotators}; marks {t.marks}; compile-all batches {t.batches} "
                f"({t.batch_items} items); single compiles {t.singles}; refused {t.refused}"
            )
            print(
                f"submitted {t.submitted}; reviews {t.reviews}; rejected {t.rejected} (all revised and "
                f"resubmitted); adjudicated {t.adjudicated}; released {t.released}"
            )
            print("seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in t.seconds.items()) + "\n")
            print(table(result))
            print(f"\ngoal (tasks with >= 2k items): entropy >= {ENTROPY_GOAL}, p_mode <= 1/k + {P_MODE_SLACK:.0%}: "
                  + ("PASS" if result.passed else "FAIL"))  # fmt: skip
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
