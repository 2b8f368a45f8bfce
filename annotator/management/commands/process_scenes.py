from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.models import MediaJob, Scene
from annotator.processing import graph
from annotator.processing.jobs import media_job_reset
from annotator.processing.lease import lease_live
from annotator.processing.tasks import enqueue_job, pipeline_start


class Command(BaseCommand):
    help = "(Re)process scenes: run their media jobs here with a progress bar, or queue them for workers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("scenes", nargs="*", type=int, help="scene ids (default: every scene)")
        parser.add_argument("--kind", action="append", choices=sorted(graph.STEPS), help="only these job kinds")
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
                pipeline_start(jobs=jobs)
            self.stdout.write(f"queued {len(jobs)} job(s) for the workers")
            return
        failed, skipped = self._run(jobs)
        done = len(jobs) - len(failed) - len(skipped)
        self.stdout.write(f"{done} job(s) done, {len(skipped)} skipped, {len(failed)} failed")
        for job in skipped:
            self.stdout.write(f"{job}: {job.detail}")
        for job in failed:
            self.stderr.write(self.style.ERROR(f"{job}: {job.error}"))
        if failed:
            raise CommandError(f"{len(failed)} job(s) failed")

    def _jobs(self, scenes: list[Scene], kinds: list[str] | None, force: bool) -> list[MediaJob]:
        # A running job is left to its worker while that worker renews its lease; one whose lease
        # ran out lost its worker and is run again like any unfinished job.
        jobs = [
            job
            for job in graph.jobs_for_scenes(scenes=scenes)
            if (not kinds or job.kind in kinds)
            and (force or job.state != MediaJob.State.SUCCEEDED)
            and not (job.state == MediaJob.State.RUNNING and lease_live(job.lease_until))
        ]
        for job in jobs:
            media_job_reset(job_id=job.id)
        return jobs

    def _run(self, jobs: list[MediaJob]) -> tuple[list[MediaJob], list[MediaJob]]:
        failed, skipped = [], []
        with tqdm(total=len(jobs), unit="job", desc="processing") as bar:
            for job in jobs:
                target = f"scene {job.scene_id}" if job.scene_id else f"image {job.satellite_image_id}"
                bar.set_description(f"{job.get_kind_display()} ({target})")
                try:
                    graph.job_run(job_id=job.id)  # followers are in the list already
                except Exception as exc:  # recorded on the job by media_job_run
                    self.stderr.write(f"{job}: {exc}")
                job.refresh_from_db()
                if job.state == MediaJob.State.FAILED:
                    failed.append(job)
                elif job.state == MediaJob.State.SKIPPED:
                    skipped.append(job)
                bar.update(1)
        return failed, skipped
