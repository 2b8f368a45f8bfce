"""Celery: Redis broker when REDIS_URL is set, else kombu's filesystem transport (no server)."""

from config import env

if env.REDIS_URL:
    CELERY_BROKER_URL = env.REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {"visibility_timeout": 3600}
else:
    _queue_dir = env.BROKER_DIR / "queue"
    _processed_dir = env.BROKER_DIR / "processed"
    _control_dir = env.BROKER_DIR / "control"
    for _d in (_queue_dir, _processed_dir, _control_dir):
        _d.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://localhost//"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_processed_dir),
        "store_processed": False,
        # Exchange bindings; kombu's default is ./control in the working directory.
        "control_folder": str(_control_dir),
    }

# Job state lives in MediaJob rows, so no result backend is needed.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.CELERY_TASK_ALWAYS_EAGER
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "media"
# CVAA work goes to GPU workers when a deployment runs them (docker-compose 'worker-gpu').
CELERY_TASK_ROUTES = {"annotator.processing.tasks.cvaa_*": {"queue": "gpu"}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
