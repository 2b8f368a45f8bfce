"""CPU time a load costs, server and clients apart: steadier than wall-clock throughput on a machine
whose cores the server, the clients and other people's work share (bench/scale.py).

Server: utime + stime from /proc/PID/stat of every server process (gunicorn master and workers),
read before and after the load. Clients: the client processes are children of the bench process
that end (and are waited for) inside the load, so they are the growth of RUSAGE_CHILDREN over it.
Services: the database and cache servers' processes (postgres, redis-server) found in /proc, one that
ends inside the load lost. Machine: the busy time of every core from /proc/stat (all but idle and
iowait), whoever spent it: with the other three it shows what is left (the kernel's, other work's)."""

from __future__ import annotations

import os
import resource
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int, *, kernel_only: bool = False) -> float:
    """utime + stime (or stime alone) of one process (all its threads), in seconds; 0 for a
    process that is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # The command name (field 2) is in parentheses and may hold spaces: split after its last ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (stime if kernel_only else utime + stime) * TICK_S


def processes_cpu_s(pids: Iterable[int], *, kernel_only: bool = False) -> dict[int, float]:
    return {pid: process_cpu_s(pid, kernel_only=kernel_only) for pid in pids}


SERVICES = ("postgres", "redis-server")


def services_cpu_s() -> dict[int, float]:
    """CPU seconds of every running process whose command is one of SERVICES."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                comm = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if comm in SERVICES:
                found[int(entry.name)] = process_cpu_s(int(entry.name))
    return found


def machine_busy_s() -> float:
    """Seconds every core spent not idle (user, nice, system, irq, softirq, steal) since boot."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) * TICK_S


def children_cpu_s() -> float:
    """User + system time of this process's children that have ended and been waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


class CpuMeter:
    """`with CpuMeter(served.pids) as used: run the load` -> used.server_s, used.clients_s: CPU
    seconds of the server's processes and of the client processes that ran and ended inside;
    used.server_kernel_s: the server's share spent in the kernel (its sockets: the clients' TCP
    connections, the database's); used.services_s, used.machine_s (the module's docstring)."""

    def __init__(self, server_pids: Callable[[], Iterable[int]]) -> None:
        self.server_pids = server_pids
        self.server_s = self.clients_s = self.services_s = self.machine_s = self.server_kernel_s = 0.0

    def __enter__(self) -> CpuMeter:
        self._server = processes_cpu_s(self.server_pids())
        self._server_kernel = processes_cpu_s(self.server_pids(), kernel_only=True)
        self._children = children_cpu_s()
        self._services = services_cpu_s()
        self._machine = machine_busy_s()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        after = processes_cpu_s(self.server_pids())
        self.machine_s = machine_busy_s() - self._machine
        self.services_s = sum(cpu - self._services.get(pid, 0.0) for pid, cpu in services_cpu_s().items())
        # A process that started during the load counts from 0; one that ended is lost (none
        # should: gunicorn here restarts no workers).
        self.server_s = sum(cpu - self._server.get(pid, 0.0) for pid, cpu in after.items())
        kernel = processes_cpu_s(after, kernel_only=True)
        self.server_kernel_s = sum(cpu - self._server_kernel.get(pid, 0.0) for pid, cpu in kernel.items())
        self.clients_s = children_cpu_s() - self._children
