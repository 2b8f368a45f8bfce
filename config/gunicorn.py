"""gunicorn settings for every way Skymark is served: `make run`, docker compose, the image and
bench/marks.py. Usage: gunicorn -c config/gunicorn.py config.wsgi:application

Processes carry the CPU work and threads only keep requests from waiting on each other's I/O:
a process's threads take turns on one interpreter lock, and with 2 processes x 4 threads eight
autosaving annotators queued there (bench/README.md, "Mark save latency"). Two threads per
process still let a long video range response stream while the process answers saves.
"""

from config import env

workers = env.WEB_CONCURRENCY
threads = env.WEB_THREADS
timeout = env.WEB_TIMEOUT
