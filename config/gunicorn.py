"""gunicorn settings for every way Skymark is served: `make run`, docker compose, the image and
bench/marks.py. Usage: gunicorn -c config/gunicorn.py config.wsgi:application

Processes carry the CPU work and threads only keep requests from waiting on each other's I/O:
a process's threads take turns on one interpreter lock, and with 2 processes x 4 threads eight
autosaving annotators queued there (bench/README.md, "Mark save latency"). Two threads per
process still let a long video range response stream while the process answers saves.

The master loads the application and the URL configuration once and the workers are forked from it
(preload_app), so their code and module objects are shared copy-on-write pages instead of one private
copy per process, and no worker's first request waits for the imports (bench/README.md, "What a web
process costs"). That is safe here because loading opens no database connection and no broker
connection: Django and Celery open those on first use, in the worker (when_ready checks the
database side and closes anything open). The garbage collector is kept off while the master loads
and the loaded objects are frozen before the fork (the order the gc module's documentation gives for
forking servers): a collection in a worker then neither scans them nor writes to their pages.

Each worker hands the interpreter lock over every 0.5 ms instead of Python's 5 ms. A thread that
waits on the database gives the lock up, and getting it back beside a thread that is computing takes
up to the whole interval, once per query and, on SQLite, once per row: five reads of 50 rows that
take 0.14 ms alone took 42-52 ms (p50) beside a computing thread at 5 ms and 3 ms at 0.5 ms, for
4-6 % less work when both threads compute (bench/gil.py). In a worker the request threads and
gunicorn's accepting thread share one lock; at the benchmark's size, over two sittings, 7 of the 8
figures of the 8-client mark saves' p99 fell (0.70-1.03x) and the scene reads' rose (1.08-1.19x):
bench/README.md, "The interpreter lock".
"""

import gc
import sys
from typing import Any

from config import env

workers = env.WEB_CONCURRENCY
threads = env.WEB_THREADS
timeout = env.WEB_TIMEOUT
preload_app = True
# seconds; see the module's docstring
SWITCH_INTERVAL_S = 0.0005

gc.disable()  # the master only; post_fork turns it back on in every worker


def when_ready(server: Any) -> None:
    """In the master, once the application is loaded and before the first worker is forked."""
    if server.cfg.preload_app:
        from django.db import connections
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018 - imports every view module, once, before the fork
        connections.close_all()  # a connection inherited by several workers would interleave their queries
    gc.collect()
    gc.freeze()


def post_fork(server: Any, worker: Any) -> None:
    gc.enable()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
