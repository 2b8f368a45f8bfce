"""Celery: Redis broker when REDIS_URL is set, else kombu's filesystem transport (no server).

A worker that dies mid-task (killed, out of memory) is covered twice: the message goes back to the
queue where the broker can tell (acks_late + reject_on_worker_lost; Redis redelivers an unacked
message after its visibility timeout), and the row of the job carries a lease that its worker
renews while it runs, so another worker takes the job up again once the lease runs out
(config/celery.py), which also covers the filesystem transport, whose messages are gone once read.
"""

from pathlib import Path

from config import env


def filesystem_transport_options(root: Path) -> dict:
    """kombu's filesystem transport under `root` (the folders are made here); the test helpers
    that point a process at the same folders as its workers use it too."""
    queue, processed, control = root / "queue", root / "processed", root / "control"
    for folder in (queue, processed, control):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(queue),
        "data_folder_out": str(queue),
        "processed_folder": str(processed),
        "store_processed": False,
        # Exchange bindings; kombu's default is ./control in the working directory.
        "control_folder": str(control),
        # Every look at a queue lists (and sorts) the one folder all queues share; an idle worker
        # looks once per queue per interval. Kept short by sending model views in batches.
        "polling_interval": 1.0,
    }


# The longest time limit of any task (CVAA training, 6 h + its grace minute). Redis must not hand
# an unacked message to a second worker while the first is still allowed to work on it.
SKYMARK_LONGEST_TASK_S = 6 * 3600 + 60
SKYMARK_JOB_LEASE_S = max(1, env.JOB_LEASE_S)
# Each job's temporary files live in a folder of its own here, so a rerun can remove what a killed
# run left (a temp folder of a dead process is never cleaned by the process itself).
SKYMARK_JOB_TMP_DIR = env.DATA_DIR / "tmp"

if env.REDIS_URL:
    CELERY_BROKER_URL = env.REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        "visibility_timeout": SKYMARK_LONGEST_TASK_S + 600,
        # A web request that queues a job fails fast (the job stays pending with a note) rather
        # than hanging when Redis is down.
        "socket_connect_timeout": 2,
        "socket_timeout": 10,
    }
    if env.BROKER_KEY_PREFIX:
        CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = env.BROKER_KEY_PREFIX
else:
    CELERY_BROKER_URL = "filesystem://localhost//"
    CELERY_BROKER_TRANSPORT_OPTIONS = filesystem_transport_options(env.BROKER_DIR)

# Job state lives in MediaJob rows, so no result backend is needed.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.CELERY_TASK_ALWAYS_EAGER
CELERY_TASK_ACKS_LATE = True
# A task whose worker process died goes back to the queue instead of being acknowledged.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "media"
# CVAA work goes to GPU workers when a deployment runs them (docker-compose 'worker-gpu'); model
# views to workers of their own ('views'), so media jobs never wait behind a backlog of views.
CELERY_TASK_ROUTES = {
    "annotator.processing.tasks.cvaa_*": {"queue": "gpu"},
    "annotator.compiling.tasks.model_view*": {"queue": "views"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Sending a task when the broker is down gives up after about a second; the caller records it.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
