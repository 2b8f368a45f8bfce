"""Training batches made ahead of the device that consumes them.

On a GPU the model's step is cheap (an H200 ran 22.8 steps/s at batch 1,024 on pairs made beforehand)
and making the pairs is not: warps and photometric changes cost about 1 s of CPU per batch, and in
threads much of it holds the interpreter lock, so two threads fed 1.4 steps/s (bench/README.md, "CVAA on
a GPU"). Processes make batches in parallel on every core. Each step's batch comes from its own
generator seeded with [seed, step], whoever makes it, so a run gives the same batches inline, in threads
or in processes.

Processes are started with `spawn` (a fork of a process that holds CUDA and torch's thread pools is not
safe) and get the pair source once, pickled, at start. A daemonic process (a prefork pool's child) may
not start processes; it falls back to threads. The `gpu` Celery worker runs `--pool solo`, so it can.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

import numpy as np

Batch = tuple[np.ndarray, np.ndarray]
THREADS = 2
MAX_PROCESSES = 16

_source: Any = None  # the pair source, in a worker process


def pick_workers(device_type: str, requested: int | None = None, *, processes: bool = True) -> tuple[str, int]:
    """("inline" | "threads" | "processes", count). On a CPU the batches are made inline: the cores are
    training. On a GPU, a process per core but one (the one that feeds the GPU), else threads.
    `processes=False` keeps them in threads (how far threads go, for the benchmark)."""
    if requested is not None:
        if requested < 0:
            raise ValueError(f"pair workers must be 0 or more, got {requested}")
        if requested == 0:
            return "inline", 0
        return ("processes", requested) if processes and _may_start_processes() else ("threads", requested)
    if device_type == "cuda" and not processes:
        return "threads", THREADS
    if device_type != "cuda":
        return "inline", 0
    spare = (os.cpu_count() or 1) - 1
    if spare >= 2 and _may_start_processes():
        return "processes", min(MAX_PROCESSES, spare)
    return "threads", THREADS


def _may_start_processes() -> bool:
    return not multiprocessing.current_process().daemon


def _install(source: Any) -> None:
    global _source
    _source = source
    import cv2  # one OpenCV thread per worker: the workers already fill the cores

    cv2.setNumThreads(1)


def _make(seed: int, step: int, size: int) -> Batch:
    return _source.batch(np.random.default_rng([seed, step]), size)


def batches(source: Any, seed: int, size: int, steps: int, *, mode: str, workers: int) -> Iterator[Batch]:
    """Steps 1..steps' batches, in order; `mode` and `workers` as pick_workers returns them."""
    if mode == "inline":
        for step in range(1, steps + 1):
            yield source.batch(np.random.default_rng([seed, step]), size)
        return
    pool: Executor
    if mode == "processes":
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_install, initargs=(source,))
        submit = lambda step: pool.submit(_make, seed, step, size)  # noqa: E731
    else:
        pool = ThreadPoolExecutor(workers)
        submit = lambda step: pool.submit(source.batch, np.random.default_rng([seed, step]), size)  # noqa: E731
    depth = 2 * workers  # enough in flight that every worker is busy while the device steps
    ahead: deque[Future[Batch]] = deque()
    next_step = 1
    try:
        for _ in range(steps):
            while len(ahead) < depth and next_step <= steps:
                ahead.append(submit(next_step))
                next_step += 1
            yield ahead.popleft().result()
    finally:  # training stopped early (an error, a closed generator): drop the batches not started
        pool.shutdown(wait=True, cancel_futures=True)
