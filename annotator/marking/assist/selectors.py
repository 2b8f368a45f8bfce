"""Reads of tracking jobs: a job is its author's alone (anyone else is told it does not exist)."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from annotator.access.scopes import scene_is_assigned
from annotator.models import TrackingJob


def tracking_job_of_mark(*, user: Any, mark_id: int) -> TrackingJob:
    """The user's latest job that drew this mark, on a scene still assigned to them; 404 otherwise."""
    job = TrackingJob.objects.filter(mark_id=mark_id, author_id=user.pk).order_by("-id").first()
    if job is None or not scene_is_assigned(user=user, scene_id=job.scene_id):
        raise Http404("no tracking drew this mark")
    return job


def tracking_job_get(*, user: Any, job_id: int) -> TrackingJob:
    """The user's own job on a scene still assigned to them; 404 for every other."""
    job = TrackingJob.objects.filter(id=job_id, author_id=user.pk).first()
    if job is None or not scene_is_assigned(user=user, scene_id=job.scene_id):
        raise Http404("no such tracking job")
    return job
