from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.models import Release
from review.scoring.metrics import PredictionError, load_jsonl, predictions_by_id, score


class Command(BaseCommand):
    help = "Score a predictions JSONL ({'id', 'answer'} per line) against a frozen release."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("release", help="release version, e.g. 1.0")
        parser.add_argument("predictions", type=Path)

    def handle(self, *args: Any, **opts: Any) -> None:
        release = Release.objects.filter(version=opts["release"]).first()
        if release is None:
            known = ", ".join(Release.objects.values_list("version", flat=True)) or "none yet"
            raise CommandError(f"no release {opts['release']!r} (releases: {known})")
        if not opts["predictions"].is_file():
            raise CommandError(f"{opts['predictions']}: predictions file not found")
        with default_storage.open(release.items_file, "rb") as fh:
            items = load_jsonl(fh.read().decode().splitlines(), "release")
        try:
            preds = predictions_by_id(load_jsonl(opts["predictions"].read_text().splitlines(), "predictions"))
        except PredictionError as exc:
            raise CommandError(str(exc)) from exc
        report = score(items, preds)
        self._print(release.version, report)

    def _print(self, version: str, report: Any) -> None:
        w = self.stdout.write
        w(f"Release {version}: {report.overall[1]} items")
        w(f"{'task':<28}{'n':>6}{'score':>9}")
        for task, (value, n) in report.per_task.items():
            w(f"{task:<28}{n:>6}{100 * value:>8.1f}%")
        w("")
        w(f"{'dimension':<28}{'n':>6}{'score':>9}")
        for dim, (value, n) in report.per_dimension.items():
            w(f"{dim:<28}{n:>6}{100 * value:>8.1f}%")
        w(f"{'overall':<28}{report.overall[1]:>6}{100 * report.overall[0]:>8.1f}%")
        for group, stats in report.bias.items():
            w(
                f"choice bias ({group}): entropy {stats['entropy']:.3f}  p_mode {stats['p_mode']:.3f}  "
                f"KL {stats['kl_uniform']:.3f}"
            )
        if report.missing:
            w(f"missing predictions: {len(report.missing)} (counted wrong), e.g. {', '.join(report.missing[:5])}")
