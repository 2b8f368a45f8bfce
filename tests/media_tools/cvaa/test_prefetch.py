"""media_tools.cvaa.prefetch: batches made ahead (inline, threads, processes) are the same batches, in
order, and the choice of workers follows the device and the process."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from media_tools.cvaa import SyntheticPairs
from media_tools.cvaa.prefetch import batches, pick_workers


@pytest.fixture
def source(rotterdam, tiny) -> SyntheticPairs:  # type: ignore[no-untyped-def]
    return SyntheticPairs.from_config(rotterdam, tiny)


@pytest.mark.parametrize(("mode", "workers"), [("threads", 2), ("processes", 2)])
def test_batches_made_ahead_are_the_batches_made_inline(source: SyntheticPairs, mode: str, workers: int) -> None:
    # given the batches of steps 1..5 made inline
    inline = list(batches(source, 3, 8, 5, mode="inline", workers=0))

    # when the same steps are made by workers
    ahead = list(batches(source, 3, 8, 5, mode=mode, workers=workers))

    # then each step gets the very same pairs, in step order
    assert len(ahead) == 5
    for (f1, s1), (f2, s2) in zip(inline, ahead, strict=True):
        assert np.array_equal(f1, f2) and np.array_equal(s1, s2)
    assert not np.array_equal(inline[0][0], inline[1][0])  # and the steps differ from each other


def test_a_run_stopped_early_stops_its_workers(source: SyntheticPairs) -> None:
    made = batches(source, 0, 8, 50, mode="processes", workers=2)
    next(made)
    made.close()  # what a failing training step does to the generator: no hang, no workers left
    assert not multiprocessing.active_children()


def test_workers_follow_the_device_and_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert pick_workers("cpu") == ("inline", 0)  # the cores are training
    assert pick_workers("cuda") == ("processes", 15)  # one core feeds the GPU
    assert pick_workers("cuda", processes=False) == ("threads", 2)
    assert pick_workers("cuda", 4) == ("processes", 4)
    assert pick_workers("cpu", 0) == ("inline", 0)
    with pytest.raises(ValueError, match="0 or more"):
        pick_workers("cuda", -1)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert pick_workers("cuda") == ("threads", 2)  # one spare core: processes would not pay
    # a prefork pool's child is daemonic and may not start processes
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True, raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert pick_workers("cuda") == ("threads", 2)
    assert pick_workers("cuda", 4) == ("threads", 4)
