"""Give items the model view they lack: items compiled before model views existed have none, and with
--failed those whose render failed are tried again. Queued for the workers, or rendered here with
--sync (which also renders views still pending, e.g. queued while no worker ran). Running it again
finds nothing left to do."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.compiling.modelview_queue import model_view_backfill
from annotator.compiling.selectors import items_without_ready_view
from annotator.models import Item, ModelView


def _view_state(item: Item) -> str:
    view = getattr(item, "model_view", None)  # a missing reverse one-to-one raises, getattr gives None
    return view.state if view is not None else "missing"


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scene", action="append", type=int, help="repeatable: only these scene ids")
        parser.add_argument("--state", action="append", choices=Item.State.values, help="repeatable: item states")
        parser.add_argument("--failed", action="store_true", help="also try failed views again")
        parser.add_argument("--dry-run", action="store_true", help="list what would be done; write nothing")
        parser.add_argument("--sync", action="store_true", help="render here, one by one, instead of queueing")

    def handle(self, *args: Any, **opts: Any) -> None:
        items = list(
            items_without_ready_view(
                scene_ids=opts["scene"], states=opts["state"], failed=opts["failed"], pending=opts["sync"]
            )
        )
        if not items:
            self.stdout.write("every selected item has its model view (or has one queued)")
            return
        if opts["dry_run"]:
            for item in items:
                self.stdout.write(f"{item.uid} {item.task} ({item.state}): model view {_view_state(item)}")
            self.stdout.write(f"{len(items)} model view(s) would be {'rendered' if opts['sync'] else 'queued'}")
            return
        failed = self._backfill(items, sync=opts["sync"])
        if not opts["sync"]:
            self.stdout.write(f"queued {len(items)} model view(s) for the workers")
            return
        self.stdout.write(f"{len(items) - len(failed)} model view(s) rendered, {len(failed)} failed")
        for uid, error in failed:
            self.stderr.write(self.style.ERROR(f"{uid}: {error}"))
        if failed:
            raise CommandError(f"{len(failed)} model view(s) failed")

    def _backfill(self, items: list[Item], *, sync: bool) -> list[tuple[str, str]]:
        """(uid, error) of each view that failed to render."""
        failed = []
        for item in tqdm(items, unit="item", desc="rendering" if sync else "queueing", disable=len(items) < 2):
            try:
                view = model_view_backfill(item_id=item.id, sync=sync)
            except Exception as exc:  # recorded on the view by the render
                failed.append((item.uid, str(exc)))
                continue
            if view.state == ModelView.State.FAILED:
                failed.append((item.uid, view.error))
        return failed
