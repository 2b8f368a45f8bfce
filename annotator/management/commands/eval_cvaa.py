from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotator.processing.cvaa.checkpoints import checkpoint_active, encoder_for
from annotator.processing.cvaa.evalsets import LOADERS
from annotator.storage import local_copy
from media_tools import MediaError

DEFAULT_TESTDATA = settings.BASE_DIR.parent / "shared" / "testdata"


class Command(BaseCommand):
    help = (
        "Recall@1/@5 (a hit: IoU >= 0.5 with the true footprint's box), mean IoU and centre error of the CVAA "
        "model (plain; gated by its significance test and calibration; re-ranked by the geometric locator) "
        "beside geometry alone, random windows (expected and one seeded draw) and the SIFT baseline, on "
        "held-out real pairs: Saro keyframes (control-point homographies) and Brighton Beach photos (GPS "
        "footprints); with the reliability of the checkpoint's calibration on each set."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--checkpoint", type=Path, help="a checkpoint file (default: the active one)")
        parser.add_argument("--testdata", type=Path, default=DEFAULT_TESTDATA, help="the shared test media")
        parser.add_argument("--sets", default="saro,brighton", help=f"comma-separated: {', '.join(LOADERS)}")
        parser.add_argument("--device", default="", help="cpu, cuda, cuda:N or mps (default: CUDA when there is one)")
        parser.add_argument("--no-baseline", action="store_true", help="skip the SIFT baseline")
        parser.add_argument(
            "--no-geometry", action="store_true", help="skip the geometric locator (its row and the re-ranking)"
        )
        parser.add_argument("--limit", type=int, default=0, help="only the first N pairs of each set (smoke runs)")

    def handle(self, *args: Any, **opts: Any) -> None:
        from media_tools.cvaa import CheckpointError, CvaaEncoder, DeviceUnavailable

        names = [s.strip() for s in opts["sets"].split(",") if s.strip()]
        unknown = [n for n in names if n not in LOADERS]
        if unknown:
            raise CommandError(f"unknown set {', '.join(unknown)}; choose from {', '.join(LOADERS)}")
        try:
            encoder, calibration = self._encoder(opts["checkpoint"], opts["device"] or None, CvaaEncoder)
        except (CheckpointError, DeviceUnavailable) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"model {encoder.weights_sha256[:12]} on {encoder.device}")
        self.stdout.write(
            calibration.table()
            if calibration is not None
            else "calibration: none in this checkpoint (its boxes are gated by the significance test alone)"
        )
        for name in names:
            try:
                data = LOADERS[name](opts["testdata"])  # type: ignore[operator]
            except MediaError as exc:
                raise CommandError(f"{name}: {exc}") from exc
            self._evaluate_set(data, encoder, calibration, opts)

    def _evaluate_set(self, data: Any, encoder: Any, calibration: Any, opts: dict[str, Any]) -> None:
        """One table: the model's rows, geometry, chance on the same windows and SIFT (media_tools.cvaa.rows)."""
        from media_tools.cvaa import HIT_IOU, SiftLocator, WindowIndex
        from media_tools.cvaa.rows import set_rows

        limit = opts["limit"]
        pairs = data.pairs[:limit] if limit > 0 else data.pairs
        with tempfile.TemporaryDirectory(prefix="skymark-eval-") as tmp:
            index = WindowIndex.build(data.image, encoder, cache_dir=Path(tmp))
        boxes = index.windows.unique_boxes
        rows = set_rows(
            lambda f: index.locate(f, encoder, top_k=5),
            boxes,
            pairs,
            metres_per_px=data.metres_per_px,
            calibration=calibration,
            alpha=settings.SKYMARK_CVAA_SIGNIFICANCE,
            min_confidence=settings.SKYMARK_CVAA_MIN_CONFIDENCE,
            sift=None if opts["no_baseline"] else SiftLocator(data.image).locate,
            geometry=None if opts["no_geometry"] else self._geometry(data.image),
        )
        height, width = data.image.shape[:2]
        self.stdout.write(
            f"\n{data.name}: {data.note}; map {width}x{height} at {data.metres_per_px:.2f} m/px, "
            f"{len(boxes)} windows; {rows.reachable} of the {len(pairs)} footprints have one at IoU >= {HIT_IOU}"
        )
        self.stdout.write(
            f"a box hits at IoU >= {HIT_IOU} with the footprint's box; centre error: median, first box to the "
            "footprint's centre, also as a fraction of the footprint's size; cvaa shown: a box the workspace "
            f"hides (p >= {settings.SKYMARK_CVAA_SIGNIFICANCE:g} or calibrated P(hit) < "
            f"{settings.SKYMARK_CVAA_MIN_CONFIDENCE:g}) counts as no answer"
        )
        self.stdout.write("\n".join(rows.lines()))

    def _geometry(self, image: Any) -> Any:
        from media_tools.cvaa.geometry import GeometricLocator

        return GeometricLocator(image)

    def _encoder(self, path: Path | None, device: str | None, encoder_cls: Any) -> tuple[Any, Any]:
        """The encoder and the checkpoint's calibration (None when it has none)."""
        from media_tools.cvaa import Calibration, load_checkpoint

        if path is not None:
            encoder = encoder_cls.from_checkpoint(path, device=device)
            stored = load_checkpoint(path).meta.get("calibration")
        else:
            checkpoint = checkpoint_active()
            if checkpoint is None:
                raise CommandError("no active CVAA checkpoint: train one (manage.py train_cvaa) or pass --checkpoint")
            stored = (checkpoint.metrics or {}).get("calibration")
            if device is None:
                encoder = encoder_for(checkpoint)
            else:
                with local_copy(checkpoint.file.name or "") as file:
                    encoder = encoder_cls.from_checkpoint(file, device=device, name=checkpoint.original_name)
        try:
            return encoder, Calibration.from_dict(stored) if isinstance(stored, dict) else None
        except ValueError as exc:
            raise CommandError(f"the checkpoint's calibration cannot be read: {exc}") from exc
