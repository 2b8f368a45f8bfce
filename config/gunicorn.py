"""gunicorn settings for every way Skymark is served: `make run`, docker compose, the image and
bench/marks.py. Usage: gunicorn -c config/gunicorn.py config.wsgi:application

Processes carry the CPU work, one per core, and each takes a connection only while it has no
request in the application (config/gunicorn_worker.py, which says why and what it gained): the
connections wait in one queue for whichever process is free first. Its threads stream what the
application has returned (a video range to a browser that reads slowly) while the process serves
the next request. Keep-alive is off so that every request joins that queue: a kept-alive connection
would bring its next request to its own process, busy or not.

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

worker_class = "config.gunicorn_worker.PullWorker"
workers = env.WEB_CONCURRENCY
threads = env.WEB_THREADS
keepalive = 0
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
        _load_what_a_first_request_loads()
        connections.close_all()  # a connection inherited by several workers would interleave their queries
    gc.collect()
    gc.freeze()


def _load_what_a_first_request_loads() -> None:
    """Django imports these on a process's first request, not at start: the cache backend (for
    Redis, the redis client: 95 modules), the session serializer, the message storage, the template
    engine with every tag library, its loaders and context processors, the static files' manifest,
    the locale's formats and the SQL compiler. Each worker paid that on its first request and
    kept a private copy; loaded here they are shared. With Redis a worker's first mark save took
    106-110 ms against 10-19 ms for the next, 56-62 ms with this (bench/README.md, "A worker's first
    requests"). tests/config/test_gunicorn.py serves first requests after this: nothing is left to
    import."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.db import connections
    from django.template import engines
    from django.utils import formats
    from django.utils.module_loading import import_string

    for conf in settings.CACHES.values():
        import_string(str(conf["BACKEND"]))
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)
    import_string(settings.MESSAGE_STORAGE)
    for backend in engines.all():
        engine = getattr(backend, "engine", None)
        if engine is not None:
            engine.template_loaders  # noqa: B018 - builds the loaders
            engine.template_context_processors  # noqa: B018 - imports them
    getattr(staticfiles_storage, "hashed_files", None)  # instantiates the storage, which reads the manifest
    formats.get_format("DATE_FORMAT", lang=settings.LANGUAGE_CODE)  # imports the locale's formats
    for alias in settings.DATABASES:
        import_module(connections[alias].ops.compiler_module)  # the first query imports it


def post_fork(server: Any, worker: Any) -> None:
    gc.enable()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
