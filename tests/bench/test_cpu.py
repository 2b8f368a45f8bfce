"""bench/harness/cpu.py: the CPU a load costs, counted apart for the server's processes (from /proc)
and for client processes that ran and ended inside the measured block."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time

from bench.harness.cpu import CpuMeter, process_cpu_s

BURN = "import time\nend = time.process_time() + {s}\nwhile time.process_time() < end: pass\n"


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_a_process_cpu_is_read_from_proc_and_a_gone_one_is_zero() -> None:
    before = process_cpu_s(os.getpid())
    _burn(0.2)
    assert process_cpu_s(os.getpid()) - before >= 0.15
    assert process_cpu_s(2**22 + 12345) == 0.0  # above Linux's largest pid


# A stand-in server: waits for a line, burns 0.3 s of CPU, says so, and stays up as a server does.
SERVER = "import sys\nsys.stdin.readline()\n" + BURN.format(s=0.3) + "print('burnt', flush=True)\ntime.sleep(60)\n"


def test_server_and_clients_are_counted_apart() -> None:
    # given a server process started before the measured block, and two client processes that burn
    # 0.2 s each and end inside it
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        with CpuMeter(lambda: [server.pid]) as used:
            server.stdin.write("go\n")  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]
            with multiprocessing.get_context("fork").Pool(2) as pool:
                pool.map(_burn, [0.2, 0.2])
            assert server.stdout.readline().strip() == "burnt"  # type: ignore[union-attr]
    finally:
        server.kill()
        server.wait()
    # then each side is what it burned (in ticks of 10 ms; the server's start-up is outside the block)
    assert 0.25 <= used.server_s < 1.0
    assert 0.35 <= used.clients_s < 1.5
