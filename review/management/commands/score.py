from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.releasing.selectors import release_find, release_records, release_versions
from review.scoring.metrics import MIN_CLUSTERS
from review.scoring.predictions import CVAA, PLAIN, PredictionError, by_variant, load_predictions, predictions_by_id
from review.scoring.report import Comparison, ScoreReport, compare, score_variants
from review.scoring.services import NO_PLAIN


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _se(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def _circ(value: float | None) -> str:
    # None: no rotated prediction was submitted, which is not the same as every rotation wrong.
    return "not scored" if value is None else f"{100 * value:.1f}%"


class Command(BaseCommand):
    help = (
        "Score predictions (JSONL {'id', 'answer'} per line, or TSV with id/index and answer/prediction "
        "columns) against a frozen release, with the random and human rows beside them. Lines with "
        "'variant': 'cvaa' (or a --cvaa file) answer the with-CVAA questions: a second row and the difference."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("release", help="release version, e.g. 1.0")
        parser.add_argument("predictions", type=Path)
        parser.add_argument(
            "--compare", type=Path, help="a second predictions file: paired comparison on the same items"
        )
        parser.add_argument(
            "--cvaa", type=Path, help="answers to the with-CVAA questions (question_cvaa), when not in PREDICTIONS"
        )
        parser.add_argument("--log", type=Path, help="write how each answer was read and scored (JSONL)")

    def _records(self, path: Path, default: str = PLAIN) -> dict[str, list[dict[str, Any]]]:
        if not path.is_file():
            raise CommandError(f"{path}: predictions file not found")
        try:
            return by_variant(load_predictions(path.read_text(), name=path.name), default=default)
        except PredictionError as exc:
            raise CommandError(str(exc)) from exc

    def _read(self, path: Path, ids: list[str]) -> Any:
        return self._by_id(self._records(path)[PLAIN], ids)

    def _by_id(self, records: list[dict[str, Any]], ids: list[str]) -> Any:
        try:
            return predictions_by_id(records, ids)
        except PredictionError as exc:
            raise CommandError(str(exc)) from exc

    def handle(self, *args: Any, **opts: Any) -> None:
        release = release_find(version=opts["release"])
        if release is None:
            known = ", ".join(release_versions()) or "none yet"
            raise CommandError(f"no release {opts['release']!r} (releases: {known})")
        records = release_records(release)
        ids = [i["id"] for i in records.items] + [v["id"] for v in records.variants]
        parts = self._records(opts["predictions"])
        if opts["cvaa"]:
            second = self._records(opts["cvaa"], default=CVAA)
            if second[PLAIN]:
                raise CommandError(f"{opts['cvaa']}: every line answers the CVAA variant (no 'variant': 'plain')")
            parts[CVAA] += second[CVAA]
        preds = self._by_id(parts[PLAIN], ids)
        cvaa = self._by_id(parts[CVAA], ids) if parts[CVAA] else None
        if not preds.answers and cvaa is not None and cvaa.answers:
            raise CommandError(NO_PLAIN)
        report = score_variants(
            records.items, preds, cvaa, variants=records.variants or None, human=records.human or None
        )
        self._print(release.version, report)
        if report.cvaa is not None and report.cvaa_difference is not None:
            self.stdout.write("\nWith CVAA (question_cvaa: the alignment prior after each question)")
            self._print(release.version, report.cvaa)
            self._print_difference(report, report.cvaa, report.cvaa_difference)
        if opts["log"]:
            with opts["log"].open("w") as fh:
                for log in report.log:
                    fh.write(json.dumps(log.__dict__, default=str) + "\n")
            self.stdout.write(f"per-item log: {opts['log']}")
        if opts["compare"]:
            other = self._read(opts["compare"], ids)
            result = compare(records.items, preds, other)
            if result.se is None or result.z is None or result.p_value is None:
                error = (
                    f"no SE: {result.se_note}"
                    if result.se is None
                    else "SE 0.0: the difference does not vary between scenes"
                )
            else:
                error = f"SE {100 * result.se:.1f}, clustered by scene; z {result.z:.2f}, p {result.p_value:.3f}"
            self.stdout.write(
                f"\n{opts['compare'].name} minus {opts['predictions'].name}: {100 * result.difference:+.1f} points "
                f"({error})"
            )

    def _print(self, version: str, report: ScoreReport) -> None:
        w = self.stdout.write
        w(f"Release {version}: {report.n} items")
        w(f"{'task':<26}{'n':>6}{'score':>9}{'±SE':>7}{'random':>9}{'human':>9}{'adj.':>8}{'circular':>12}")
        for task, row in report.tasks.items():
            adjusted = "-" if row.chance_adjusted is None else f"{row.chance_adjusted:.2f}"
            w(
                f"{task:<26}{row.n:>6}{_pct(row.score):>9}{_se(row.se):>7}{_pct(row.chance):>9}"
                f"{_pct(row.human):>9}{adjusted:>8}{_circ(row.circular):>12}"
            )
        w("")
        w(f"{'dimension (mean of tasks)':<26}{'':>6}{'score':>9}{'':>7}{'random':>9}{'human':>9}")
        for dim, value in report.dimensions.items():
            human = report.human_dimensions.get(dim)
            w(f"{dim:<26}{'':>6}{_pct(value):>9}{'':>7}{_pct(report.random_dimensions.get(dim)):>9}{_pct(human):>9}")
        w(
            f"{'overall':<26}{report.n:>6}{_pct(report.overall):>9}{_se(report.overall_se):>7}"
            f"{_pct(report.random_overall):>9}{_pct(report.human_overall):>9}"
        )
        w(f"circular (mean of tasks): {_circ(report.circular_overall)}")
        notes = [f"{task}: {row.se_note}" for task, row in report.tasks.items() if row.se is None]
        if report.overall_se is None:
            notes.append(f"overall: {report.overall_se_note}")
        if notes:
            w(f"±SE '-': clustered by scene, estimated from {MIN_CLUSTERS} scenes on; " + "; ".join(notes))
        for label, bias in (("predictions", report.bias), ("answer key", report.key_bias)):
            for group, stats in bias.items():
                w(
                    f"choice bias of the {label} ({group}): entropy {stats['entropy']:.3f}  "
                    f"p_mode {stats['p_mode']:.3f}  KL {stats['kl_uniform']:.3f}"
                )
        self._print_problems(report)

    def _print_difference(self, plain: ScoreReport, cvaa: ScoreReport, diff: Comparison) -> None:
        w = self.stdout.write
        w("\nPlain and with CVAA, the same items (difference: with CVAA minus plain, in points)")
        w(f"{'task':<26}{'n':>6}{'plain':>9}{'w/ CVAA':>9}{'diff':>8}")
        for task, row in plain.tasks.items():
            w(
                f"{task:<26}{row.n:>6}{_pct(row.score):>9}{_pct(cvaa.tasks[task].score):>9}{_points(diff.tasks[task]):>8}"
            )
        for dim, value in plain.dimensions.items():
            after = cvaa.dimensions.get(dim)
            change = None if after is None else after - value
            w(f"{dim:<26}{'':>6}{_pct(value):>9}{_pct(after):>9}{_points(change):>8}")
        w(f"{'overall':<26}{plain.n:>6}{_pct(plain.overall):>9}{_pct(cvaa.overall):>9}{_points(diff.difference):>8}")
        if diff.se is None or diff.p_value is None:
            w(f"difference overall: no test ({diff.se_note or 'it does not vary between scenes'})")
        else:
            w(f"difference overall: SE {100 * diff.se:.1f} points, clustered by scene; p {diff.p_value:.3f}")

    def _print_problems(self, report: ScoreReport) -> None:
        w = self.stdout.write
        if report.unparseable:
            w(f"unreadable answers: {len(report.unparseable)} (counted wrong):")
            for log in report.unparseable[:20]:
                w(f"  {log.id}: {str(log.reply)[:60]!r} ({log.rule})")
        if report.duplicates:
            w(
                f"duplicate ids: {len(report.duplicates)} (the first answer counts), "
                f"e.g. {', '.join(report.duplicates[:5])}"
            )
        if report.unknown:
            w(
                f"unknown ids: {len(report.unknown)} (not in this release, ignored), "
                f"e.g. {', '.join(report.unknown[:5])}"
            )
        if report.missing:
            w(f"missing predictions: {len(report.missing)} (counted wrong), e.g. {', '.join(report.missing[:5])}")
