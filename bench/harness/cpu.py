"""CPU time a load costs, server and clients apart: steadier than wall-clock throughput on a machine
whose cores the server, the clients and other people's work share (bench/scale.py).

Server: utime + stime from /proc/PID/stat of every server process (gunicorn master and workers),
read before and after the load. Clients: the client processes are children of the bench process
that end (and are waited for) inside the load, so they are the growth of RUSAGE_CHILDREN over it."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    """utime + stime of one process (all its threads), in seconds; 0 for a process that is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # The command name (field 2) is in parentheses and may hold spaces: split after its last ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (utime + stime) * TICK_S


def processes_cpu_s(pids: Iterable[int]) -> dict[int, float]:
    return {pid: process_cpu_s(pid) for pid in pids}


def children_cpu_s() -> float:
    """User + system time of this process's children that have ended and been waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


class CpuMeter:
    """`with CpuMeter(served.pids) as used: run the load` -> used.server_s, used.clients_s: CPU
    seconds of the server's processes and of the client processes that ran and ended inside."""

    def __init__(self, server_pids: Callable[[], Iterable[int]]) -> None:
        self.server_pids = server_pids
        self.server_s = self.clients_s = 0.0

    def __enter__(self) -> CpuMeter:
        self._server = processes_cpu_s(self.server_pids())
        self._children = children_cpu_s()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        after = processes_cpu_s(self.server_pids())
        # A process that started during the load counts from 0; one that ended is lost (none
        # should: gunicorn here restarts no workers).
        self.server_s = sum(cpu - self._server.get(pid, 0.0) for pid, cpu in after.items())
        self.clients_s = children_cpu_s() - self._children
