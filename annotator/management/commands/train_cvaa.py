from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.models import CvaaTraining
from annotator.processing.cvaa.training import PRESETS, training_create, training_run
from annotator.processing.tasks import enqueue_jobs, enqueue_training


class Command(BaseCommand):
    help = (
        "Train a CVAA checkpoint from the platform's data (confident keyframe placements, known footprints, "
        "approved marks, self-supervised crops of the training scenes' images), holding out whole scenes; keep "
        "the best by validation recall@1, calibrate its score on the held-out scenes and make it active, so "
        "that scene previews are recomputed with it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--steps", type=int, default=2000, help="training steps (batches)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--preset", choices=sorted(PRESETS), default="small", help="model size (tiny: tests)")
        parser.add_argument("--device", default="", help="cpu, cuda, cuda:N or mps (default: CUDA when there is one)")
        parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
        parser.add_argument("--out", type=Path, help="also write the checkpoint file here")
        parser.add_argument("--no-activate", action="store_true", help="keep the current checkpoint active")
        parser.add_argument("--enqueue", action="store_true", help="run on a `gpu` worker instead of here")
        parser.add_argument(
            "--export", type=Path, metavar="DIR",
            help="write the training set as plain files for a machine with torch only "
            "(python -m media_tools.cvaa.bundle DIR --out FILE trains there), and stop",
        )  # fmt: skip
        parser.add_argument(
            "--import-trained", type=Path, metavar="FILE",
            help="a checkpoint trained on an exported set: calibrate it on the held-out scenes and keep it",
        )  # fmt: skip

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["steps"] < 1:
            raise CommandError("--steps must be at least 1")
        if opts["export"] or opts["import_trained"]:
            self._offline(opts)
            return
        if opts["device"] and not opts["enqueue"]:  # an enqueued run trains on the gpu worker, not here
            from media_tools.cvaa import DeviceUnavailable, pick_device  # imports torch

            try:
                pick_device(opts["device"])
            except DeviceUnavailable as exc:
                raise CommandError(f"--device: {exc}") from exc
        options = {"preset": opts["preset"], "device": opts["device"], "activate": not opts["no_activate"]}
        if opts["threads"]:
            options["threads"] = opts["threads"]
        run = training_create(steps=opts["steps"], seed=opts["seed"], options=options, created_by=None)
        if opts["enqueue"]:
            enqueue_training(run=run)
            self.stdout.write(f"queued training run {run.id} for a gpu worker (GET /api/cvaa/trainings/)")
            return
        with tqdm(total=opts["steps"], unit="step", desc="training") as bar:

            def progress(fraction: float) -> None:
                bar.update(round(fraction * opts["steps"]) - bar.n)

            jobs = training_run(run_id=run.id, progress=progress, log=tqdm.write)
        run.refresh_from_db()
        if run.state != CvaaTraining.State.SUCCEEDED or run.checkpoint is None:
            raise CommandError(run.error or f"training run {run.id} is {run.state}")
        checkpoint = run.checkpoint
        self.stdout.write(f"checkpoint {checkpoint.id} ({checkpoint.sha256[:12]}): {run.detail}")
        if opts["out"]:
            opts["out"].parent.mkdir(parents=True, exist_ok=True)
            with default_storage.open(checkpoint.file.name or "", "rb") as src, opts["out"].open("wb") as dst:
                shutil.copyfileobj(src, dst)
            self.stdout.write(f"wrote {opts['out']}")
        self._enqueue(jobs)

    def _enqueue(self, jobs: list[Any]) -> None:
        if jobs:
            enqueue_jobs(jobs=jobs)
            self.stdout.write(
                f"active now; queued {len(jobs)} scene preview job(s) for the workers "
                "(or run them here: manage.py process_scenes --kind cvaa)"
            )

    def _offline(self, opts: dict[str, Any]) -> None:
        from annotator.processing.cvaa.offline import training_export, training_import
        from media_tools import MediaError

        if opts["export"] and opts["import_trained"]:
            raise CommandError("give --export or --import-trained, not both")
        try:
            if opts["export"]:
                training_export(out=opts["export"], config=PRESETS[opts["preset"]](), seed=opts["seed"], log=tqdm.write)
                return
            path: Path = opts["import_trained"]
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise CommandError(f"--import-trained: {exc}") from exc
            run, jobs = training_import(
                data=data, name=path.name, activate=not opts["no_activate"], created_by=None, log=tqdm.write
            )
        except (MediaError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        checkpoint = run.checkpoint
        assert checkpoint is not None
        self.stdout.write(f"checkpoint {checkpoint.id} ({checkpoint.sha256[:12]}): {run.detail}")
        self._enqueue(jobs)
