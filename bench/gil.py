"""The interpreter lock's hand-over interval and a thread that reads the database beside a busy one.

A gunicorn worker runs two request threads (config/gunicorn.py). A thread that runs a query gives
the interpreter lock up and must get it back for each row (the sqlite3 module releases it around
every step) or each answer (psycopg); beside a thread that is computing, getting it back waits up
to the switch interval. This measures five reads of 50 rows from a SQLite file, alone and beside a
thread that computes, at Python's default interval (5 ms, the baseline) and at the one the workers
use, each in a fresh interpreter; and two computing threads' work per second at both, which is
what a shorter interval could cost.

Usage: python bench/gil.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_S = 0.005

CHILD = r"""
import json, sqlite3, sys, threading, time
interval, db, rounds = float(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sys.setswitchinterval(interval)
stop = threading.Event()

def busy(counts):
    n = 0
    while not stop.is_set():
        sum(i * i for i in range(2000))
        n += 1
    counts.append(n)

def reads(conn):
    out = []
    for _ in range(rounds):
        began = time.perf_counter()
        for q in range(5):
            conn.execute("SELECT id, body FROM t WHERE id BETWEEN ? AND ?", (q * 50, q * 50 + 49)).fetchall()
        out.append((time.perf_counter() - began) * 1000)
    return out

conn = sqlite3.connect(db, check_same_thread=False)
alone = reads(conn)
counts = []
burner = threading.Thread(target=busy, args=(counts,))
burner.start()
beside = reads(conn)
stop.set()
burner.join()
# two computing threads for 2 s: the work a shorter interval could cost
stop.clear()
counts = []
pair = [threading.Thread(target=busy, args=(counts,)) for _ in range(2)]
for t in pair:
    t.start()
time.sleep(2.0)
stop.set()
for t in pair:
    t.join()
print(json.dumps({"alone": alone, "beside": beside, "work_per_s": sum(counts) / 2.0}))
"""


def _database(folder: Path) -> str:
    import sqlite3

    path = str(folder / "gil.sqlite3")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany("INSERT INTO t (body) VALUES (?)", [("x" * 800,) for _ in range(5000)])
    return path


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--interval", type=float, help="seconds, instead of the web workers' interval")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import gc

    from config.gunicorn import SWITCH_INTERVAL_S

    gc.enable()  # the config module turns it off, as it does in gunicorn's master
    ours_s = args.interval or SWITCH_INTERVAL_S

    with tempfile.TemporaryDirectory(prefix="skymark-gil-") as tmp:
        db = _database(Path(tmp))
        runs = {}
        for interval in (DEFAULT_S, ours_s):
            cmd = [sys.executable, "-c", CHILD, str(interval), db, str(args.rounds)]
            runs[interval] = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    base, ours = runs[DEFAULT_S], runs[ours_s]
    print(f"five reads of 50 rows; switch interval {DEFAULT_S * 1000:g} ms (Python's) against "
          f"{ours_s * 1000:g} ms")  # fmt: skip
    print(f"{'':<40}{'5 ms':>12}{'ours':>12}{'ratio':>9}")
    for key, label in (("alone", "alone"), ("beside", "beside a computing thread")):
        for q, name in ((0.5, "p50"), (0.99, "p99")):
            a, b = _pct(base[key], q), _pct(ours[key], q)
            print(f"{label + ' ' + name + ' (ms)':<40}{a:>12.2f}{b:>12.2f}{b / a:>8.2f}x")
    a, b = base["work_per_s"], ours["work_per_s"]
    print(f"{'two computing threads, work / s':<40}{a:>12,.0f}{b:>12,.0f}{b / a:>8.2f}x")
    print(f"median alone: {statistics.median(base['alone']):.2f} / {statistics.median(ours['alone']):.2f} ms")


if __name__ == "__main__":
    main()
