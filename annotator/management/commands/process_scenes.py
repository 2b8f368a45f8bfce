from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q
from tqdm import tqdm

from annotator.models import MediaJob, Scene
from annotator.services.jobs import media_job_reset, media_job_run
from annotator.services.pipeline import NEXT, STEPS, jobs_create_for_image, jobs_create_for_scene
from annotator.tasks import enqueue_first_jobs, enqueue_job


def _ordered(jobs: list[MediaJob]) -> list[MediaJob]:
    """Jobs in dependency order (a job after the job that starts it)."""
    rank: dict[str, int] = {}

    def depth(kind: str) -> int:
        if kind not in rank:
            parents = [k for k, after in NEXT.items() if kind in after]
            rank[kind] = 1 + max((depth(p) for p in parents), default=-1)
        return rank[kind]

    return sorted(jobs, key=lambda j: (depth(j.kind), j.id))


class Command(BaseCommand):
    help = "(Re)process scenes: run their media jobs here with a progress bar, or queue them for workers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("scenes", nargs="*", type=int, help="scene ids (default: every scene)")
        parser.add_argument("--kind", action="append", choices=sorted(STEPS), help="only these job kinds")
        parser.add_argument("--force", action="store_true", help="redo jobs that already succeeded")
        parser.add_argument("--enqueue", action="store_true", help="send to the Celery workers instead")

    def handle(self, *args: Any, **opts: Any) -> None:
        scenes = Scene.objects.all().order_by("id")
        if opts["scenes"]:
            scenes = scenes.filter(id__in=opts["scenes"])
            missing = set(opts["scenes"]) - set(scenes.values_list("id", flat=True))
            if missing:
                raise CommandError(f"no scene with id {', '.join(map(str, sorted(missing)))}")
        jobs = self._jobs(list(scenes), opts["kind"], opts["force"])
        if opts["enqueue"]:
            # With --kind the chosen jobs go out themselves; otherwise the first ones, and the rest
            # follow as their inputs succeed.
            if opts["kind"]:
                for job in jobs:
                    enqueue_job(job=job)
            else:
                enqueue_first_jobs(jobs=jobs)
            self.stdout.write(f"queued {len(jobs)} job(s) for the workers")
            return
        failed = self._run(jobs)
        self.stdout.write(f"{len(jobs) - len(failed)} job(s) done, {len(failed)} failed")
        for job in failed:
            self.stderr.write(self.style.ERROR(f"{job}: {job.error}"))
        if failed:
            raise CommandError(f"{len(failed)} job(s) failed")

    def _jobs(self, scenes: list[Scene], kinds: list[str] | None, force: bool) -> list[MediaJob]:
        for scene in scenes:  # scenes imported before a job kind existed get it now
            jobs_create_for_scene(scene=scene)
            for image in scene.satellite_images.all():
                jobs_create_for_image(image=image)
        qs = MediaJob.objects.filter(Q(scene__in=scenes) | Q(satellite_image__scenes__in=scenes)).distinct()
        if kinds:
            qs = qs.filter(kind__in=kinds)
        if not force:
            qs = qs.exclude(state=MediaJob.State.SUCCEEDED)
        jobs = _ordered(list(qs))
        for job in jobs:
            media_job_reset(job_id=job.id)
        return jobs

    def _run(self, jobs: list[MediaJob]) -> list[MediaJob]:
        failed = []
        with tqdm(total=len(jobs), unit="job", desc="processing") as bar:
            for job in jobs:
                target = f"scene {job.scene_id}" if job.scene_id else f"image {job.satellite_image_id}"
                bar.set_description(f"{job.get_kind_display()} ({target})")
                try:
                    media_job_run(job_id=job.id, step=STEPS[job.kind])
                except Exception as exc:  # recorded on the job by media_job_run
                    self.stderr.write(f"{job}: {exc}")
                job.refresh_from_db()
                if job.state == MediaJob.State.FAILED:
                    failed.append(job)
                bar.update(1)
        return failed
