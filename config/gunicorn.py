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
"""

import gc
from typing import Any

from config import env

workers = env.WEB_CONCURRENCY
threads = env.WEB_THREADS
timeout = env.WEB_TIMEOUT
preload_app = True

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
