"""The progress bars the backup and restore commands show (tqdm on stderr)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm


@contextmanager
def tqdm_progress(description: str, total: int, unit: str) -> Iterator[Callable[[int], None]]:
    with tqdm(total=total, desc=description, unit=unit, unit_scale=unit == "B", unit_divisor=1024) as bar:
        yield bar.update
