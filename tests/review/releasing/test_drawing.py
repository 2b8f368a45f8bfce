"""review.releasing.drawing: the build's pool of drawing processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from review.releasing.drawing import _parts, run_parallel
from tests.factories import SatelliteImageFactory


def _write_pid(path: str) -> None:
    Path(path).write_text(str(os.getpid()))


def _draw_in_a_pool(folder: str) -> list[str]:
    run_parallel([(_write_pid, (f"{folder}/{k}",)) for k in range(4)], workers=2)
    return sorted(Path(folder, str(k)).read_text() for k in range(4))


def test_the_pool_runs_in_processes_of_its_own(tmp_path: Path) -> None:
    pids = _draw_in_a_pool(str(tmp_path))
    assert len(pids) == 4 and str(os.getpid()) not in pids


def test_the_pool_starts_inside_a_celery_prefork_worker(tmp_path: Path) -> None:
    # given a daemonic worker process as Celery's prefork pool makes (billiard), which multiprocessing
    # would refuse to give children
    import billiard

    with billiard.Pool(1) as workers:
        # when a build draws in it / then its pool ran, in other processes than the worker
        pids = workers.apply(_draw_in_a_pool, (str(tmp_path),))
    assert len(pids) == 4


@pytest.mark.django_db
def test_a_large_image_is_decoded_by_fewer_processes_at_once() -> None:
    # given an orthophoto of 30,000 px a side (2.7 GB decoded) and a small image
    big, small = SatelliteImageFactory(width=30_000, height=30_000), SatelliteImageFactory()
    # then the big one is drawn by one process at a time, the small one by every worker
    assert _parts({str(big.id): [], str(small.id): []}, 8) == {str(big.id): 1, str(small.id): 8}
