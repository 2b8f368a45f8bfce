"""The leaderboard page of a release: upload predictions, compare models with the random and
human rows, download how each answer was read."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render

from annotator.access.permissions import IsAdmin, page_require
from annotator.compiling.catalog import DIMENSIONS, TASK_DIMENSION
from annotator.models import Item
from annotator.serving import serve_stored
from review.models import Release
from review.releasing.selectors import release_get
from review.scoring.metrics import MIN_CLUSTERS
from review.scoring.selectors import leaderboard
from review.scoring.services import predictions_read, submission_create


@login_required
def leaderboard_page(request: HttpRequest, version: str) -> HttpResponse:
    page_require(request, IsAdmin())
    release = release_get(version=version, user=request.user)
    error = None
    if request.method == "POST":
        upload = request.FILES.get("predictions")
        try:
            if upload is None:
                raise ValidationError({"predictions": "choose a predictions file (JSONL or TSV)"})
            submission = submission_create(
                release=release,
                name=request.POST.get("name", ""),
                data=predictions_read(upload=upload),
                filename=upload.name or "predictions.jsonl",
                user=request.user,
            )
        except ValidationError as exc:
            error = " ".join(m for msgs in exc.message_dict.values() for m in msgs)
        else:
            messages.success(request, f"{submission.name}: {100 * submission.overall:.1f} % overall.")
            return redirect("leaderboard", version=release.version)
    tasks = sorted(release.manifest.get("tasks", {}), key=lambda t: (DIMENSIONS.index(TASK_DIMENSION[t]), t))
    submissions = list(leaderboard(release=release))

    def cells(report: dict[str, Any], key: str) -> list[float | None]:
        return [report["tasks"].get(t, {}).get(key) for t in tasks]

    def cvaa_row(report: dict[str, Any]) -> dict[str, Any] | None:
        """The with-CVAA row under a submission that gave those answers: scores and differences."""
        if "cvaa" not in report:
            return None
        diff = report["cvaa_difference"]
        return {
            "overall": report["cvaa"]["overall"],
            "circular": report["cvaa"].get("circular_overall"),
            "difference": diff,
            "cells": [
                (score, diff["tasks"].get(t)) for score, t in zip(cells(report["cvaa"], "score"), tasks, strict=True)
            ],
        }

    # The random and human rows are properties of the release, the same in every report.
    reference = submissions[0].report if submissions else None
    return render(
        request,
        "review/leaderboard.html",
        {
            "release": release,
            "frozen": release.state == Release.State.FROZEN,
            "rows": [
                # circular: None when no rotated prediction was submitted ("not scored", not 0 %)
                {
                    "submission": s,
                    "cells": cells(s.report, "score"),
                    "circular": s.report.get("circular_overall"),
                    "cvaa": cvaa_row(s.report),
                }
                for s in submissions
            ],
            "random": {"overall": reference["random_overall"], "cells": cells(reference, "chance")}
            if reference
            else None,
            "human": {"overall": reference["human_overall"], "cells": cells(reference, "human")}
            if reference and reference["human_overall"] is not None
            else None,
            "tasks": tasks,
            # the column heads: the task's name as people read it, wrapped rather than cut short
            "task_names": [Item.Task(t).label if t in Item.Task.values else t for t in tasks],
            "error": error,
            "min_clusters": MIN_CLUSTERS,
        },
        status=400 if error else 200,
    )


@login_required
def submission_log(request: HttpRequest, version: str, submission_id: int) -> HttpResponseBase:
    page_require(request, IsAdmin())
    submission = leaderboard(release=release_get(version=version, user=request.user)).filter(id=submission_id).first()
    if submission is None:
        raise Http404("no such submission")
    return serve_stored(request, submission.log.name, download_as=f"{version}-{submission.name}-log.jsonl")
