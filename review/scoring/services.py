"""Scoring a predictions file against a frozen release and keeping it for the leaderboard."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from annotator.storage import delete_quietly
from review.models import Release, Submission
from review.releasing.selectors import release_records

from .predictions import CVAA, PLAIN, PredictionError, by_variant, load_predictions, predictions_by_id
from .report import Comparison, ScoreReport, score_variants

# A release of 17,903 items with its circular rotations scores from about 15 MB of JSONL.
MAX_PREDICTIONS_BYTES = 64 * 1024 * 1024
NO_PLAIN = (
    "no plain prediction has an id of this release: the with-CVAA row is scored beside the plain one "
    "(lines without a variant answer the plain questions)"
)


def difference_summary(diff: Comparison) -> dict[str, Any]:
    return {
        "overall": diff.difference,
        "se": diff.se,
        "se_note": diff.se_note,
        "p_value": diff.p_value,
        "tasks": diff.tasks,
    }


def report_summary(report: ScoreReport) -> dict[str, Any]:
    """What the leaderboard keeps of a report (the per-item log goes to its own file); with
    with-CVAA predictions, that row's summary under "cvaa" and the difference under "cvaa_difference"."""
    summary = _row_summary(report)
    if report.cvaa is not None and report.cvaa_difference is not None:
        summary["cvaa"] = _row_summary(report.cvaa)
        summary["cvaa_difference"] = difference_summary(report.cvaa_difference)
    return summary


def _row_summary(report: ScoreReport) -> dict[str, Any]:
    return {
        "tasks": {t: asdict(row) for t, row in report.tasks.items()},
        "dimensions": report.dimensions,
        "overall": report.overall,
        "overall_se": report.overall_se,
        "overall_se_note": report.overall_se_note,
        "scenes": report.scenes,
        "circular_overall": report.circular_overall,
        "n": report.n,
        "random_dimensions": report.random_dimensions,
        "random_overall": report.random_overall,
        "human_dimensions": report.human_dimensions,
        "human_overall": report.human_overall,
        "bias": report.bias,
        "key_bias": report.key_bias,
        "missing": len(report.missing),
        "unparseable": len(report.unparseable),
        "duplicates": len(report.duplicates),
        "unknown": len(report.unknown),
    }


def release_score(
    *, release: Release, text: str, filename: str, cvaa_text: str | None = None, cvaa_filename: str = ""
) -> ScoreReport:
    """Score predictions (the text of a JSONL or TSV file) against a frozen release: the plain row,
    and the with-CVAA row when predictions of that variant are given (lines of `text` marked
    "variant": "cvaa", or all of `cvaa_text`). Raises ValidationError naming the line a person must fix."""
    if release.state != Release.State.FROZEN:
        raise ValidationError(
            {"release": f"release {release.version} is {release.state}; only frozen releases are scored"}
        )
    records = release_records(release)
    ids = [i["id"] for i in records.items] + [v["id"] for v in records.variants]
    try:
        parts = by_variant(load_predictions(text, name=filename))
        if cvaa_text is not None:
            second = by_variant(load_predictions(cvaa_text, name=cvaa_filename or "cvaa.jsonl"), default=CVAA)
            if second[PLAIN]:
                raise PredictionError(f"{cvaa_filename or 'the with-CVAA file'}: every line answers the CVAA variant")
            parts[CVAA] += second[CVAA]
        plain = predictions_by_id(parts[PLAIN], ids)
        cvaa = predictions_by_id(parts[CVAA], ids) if parts[CVAA] else None
    except PredictionError as exc:
        raise ValidationError({"predictions": str(exc)}) from exc
    if not plain.answers:
        only_cvaa = cvaa is not None and cvaa.answers
        raise ValidationError({"predictions": NO_PLAIN if only_cvaa else "no prediction has an id of this release"})
    return score_variants(records.items, plain, cvaa, variants=records.variants or None, human=records.human or None)


def predictions_read(*, upload: UploadedFile) -> bytes:
    """The uploaded file's bytes, refused by its size before any of it is read into memory."""
    name = upload.name or "predictions"
    if (upload.size or 0) > MAX_PREDICTIONS_BYTES:
        raise ValidationError({"predictions": f"{name}: larger than {MAX_PREDICTIONS_BYTES // 2**20} MB"})
    data = upload.read(MAX_PREDICTIONS_BYTES + 1)
    if len(data) > MAX_PREDICTIONS_BYTES:
        raise ValidationError({"predictions": f"{name}: larger than {MAX_PREDICTIONS_BYTES // 2**20} MB"})
    return data


def submission_create(*, release: Release, name: str, data: bytes, filename: str, user: Any) -> Submission:
    """Score an uploaded predictions file and keep it, its per-item log and the report."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": "name the model or run these predictions come from"})
    if len(data) > MAX_PREDICTIONS_BYTES:
        raise ValidationError({"predictions": f"{filename}: larger than {MAX_PREDICTIONS_BYTES // 2**20} MB"})
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError({"predictions": f"{filename}: not UTF-8 text (JSONL or TSV)"}) from None
    report = release_score(release=release, text=text, filename=filename)
    entries = [entry.__dict__ for entry in report.log]
    if report.cvaa is not None:  # the with-CVAA answers after the plain ones, each saying so
        entries += [{**entry.__dict__, "variant": "cvaa"} for entry in report.cvaa.log]
    log = "".join(json.dumps(entry, default=str, ensure_ascii=False) + "\n" for entry in entries)
    stored: list[str] = []
    try:
        with transaction.atomic():
            submission = Submission(
                release=release,
                name=name,
                submitted_by=user,
                predictions_sha256=hashlib.sha256(data).hexdigest(),
                report=report_summary(report),
                overall=report.overall,
            )
            suffix = ".tsv" if filename.lower().endswith((".tsv", ".tab")) else ".jsonl"
            stem = f"{release.version}-{slugify(name) or 'predictions'}"
            submission.predictions.save(f"{stem}{suffix}", ContentFile(data), save=False)
            stored.append(str(submission.predictions.name))
            submission.log.save(f"{stem}-log.jsonl", ContentFile(log.encode()), save=False)
            stored.append(str(submission.log.name))
            submission.save()
    except IntegrityError:
        delete_quietly(stored)
        raise ValidationError({"name": f"{name!r} is already on the {release.version} leaderboard"}) from None
    except Exception:
        delete_quietly(stored)
        raise
    return submission
