"""review.releasing.drawing: the build's pool of drawing processes."""

from __future__ import annotations

import os
from pathlib import Path

from review.releasing.drawing import run_parallel


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
