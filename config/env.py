"""The one place that reads the process environment.

Every setting that can differ between a laptop, CI and production is read here and nowhere
else, so `grep env.` over config/ lists the whole surface. Secrets have no production default.
"""

from __future__ import annotations

import os
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
# A local, git-ignored .env file is a convenience for development only.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG: bool = env.bool("DJANGO_DEBUG", default=False)
DATA_DIR: Path = Path(env.str("SKYMARK_DATA_DIR", default=str(BASE_DIR / "var")))
# The key `make run` generated for the embedded default lives in DATA_DIR, so any `manage.py`
# command of that install finds it without an export; production sets SECRET_KEY itself.
SECRET_KEY_FILE: Path = DATA_DIR / "secret_key"


def _secret_key() -> str:
    if key := env.str("SECRET_KEY", default=""):
        return key
    try:
        return SECRET_KEY_FILE.read_text().strip()
    except OSError:
        return ""


# Development keeps working without a secret; production (DEBUG off, not under tests) must set one.
SECRET_KEY: str = _secret_key()
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

DATABASE_URL: str = env.str("DATABASE_URL", default="")
# PostgreSQL: bind parameters on the server and prepare a statement a connection runs again, so the
# server parses and plans it once (config/settings/database.py). Off for a pooler in transaction
# mode that cannot carry prepared statements (PgBouncer before 1.21).
DB_PREPARED_STATEMENTS: bool = env.bool("SKYMARK_DB_PREPARED_STATEMENTS", default=True)
REDIS_URL: str = env.str("REDIS_URL", default="")
# Prepended to every Redis key of the task queue, so several installs (or test runs) can share one
# Redis database without taking each other's messages.
BROKER_KEY_PREFIX: str = env.str("SKYMARK_BROKER_KEY_PREFIX", default="")
MEDIA_ROOT: Path = Path(env.str("MEDIA_ROOT", default=str(DATA_DIR / "media")))
STATIC_ROOT: Path = Path(env.str("STATIC_ROOT", default=str(DATA_DIR / "static")))
BROKER_DIR: Path = Path(env.str("CELERY_BROKER_DIR", default=str(DATA_DIR / "broker")))
CELERY_TASK_ALWAYS_EAGER: bool = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# Seconds a running job's lease lasts without a heartbeat; a job whose worker vanished is taken up
# again once it runs out (workers renew it several times per lease while a step runs).
JOB_LEASE_S: int = env.int("SKYMARK_JOB_LEASE_S", default=60)
# Decoded satellite images a model-view worker process keeps between items (MB, per process).
VIEW_CACHE_MB: int = env.int("SKYMARK_VIEW_CACHE_MB", default=256)

# S3-compatible storage (MinIO in docker-compose). Empty bucket = local media folder.
S3_BUCKET: str = env.str("S3_BUCKET", default="")
S3_ENDPOINT_URL: str = env.str("S3_ENDPOINT_URL", default="")
S3_ACCESS_KEY_ID: str = env.str("S3_ACCESS_KEY_ID", default="")
S3_SECRET_ACCESS_KEY: str = env.str("S3_SECRET_ACCESS_KEY", default="")
S3_REGION: str = env.str("S3_REGION", default="us-east-1")
# Signed URLs name the endpoint browsers reach, which may differ from the one servers use (inside
# docker-compose the app reaches http://minio:9000, a browser http://localhost:9000). Empty = the same.
S3_PUBLIC_ENDPOINT_URL: str = env.str("S3_PUBLIC_ENDPOINT_URL", default="")
# How long a signed media URL works: long enough to watch a video through, short enough that a
# copied link soon stops working.
S3_URL_EXPIRE_S: int = env.int("S3_URL_EXPIRE_S", default=3600)

FFMPEG_BIN: str = env.str("FFMPEG_BIN", default="ffmpeg")
FFPROBE_BIN: str = env.str("FFPROBE_BIN", default="ffprobe")
KEYFRAME_FPS: float = env.float("KEYFRAME_FPS", default=1.0)
ASSIST_MAX_SECONDS: float = env.float("ASSIST_MAX_SECONDS", default=60.0)
ASSIST_MAX_GAP_S: float = env.float("ASSIST_MAX_GAP_S", default=5.0)
# Refuse images with more pixels than this before decoding them (decompression bombs).
MAX_IMAGE_PIXELS: int = env.int("MAX_IMAGE_PIXELS", default=400_000_000)
# Comma-separated label set for marks; empty means the built-in set (annotator/labels.py).
LABELS: list[str] = [x.strip() for x in env.str("SKYMARK_LABELS", default="").split(",") if x.strip()]
# CVAA retrieval previews: where each worker caches window embeddings (per image and model; local,
# not in the storage), the torch device ("" picks CUDA when there is one), when the workspace shows a
# learned box (a calibrated probability of a hit and a significance level), the confidence a placement
# needs to be a training pair, and the camera assumed when telemetry gives a footprint.
CVAA_CACHE_DIR: Path = Path(env.str("CVAA_CACHE_DIR", default=str(DATA_DIR / "cvaa-cache")))
CVAA_DEVICE: str = env.str("CVAA_DEVICE", default="")
CVAA_MIN_CONFIDENCE: float = env.float("CVAA_MIN_CONFIDENCE", default=0.5)
CVAA_SIGNIFICANCE: float = env.float("CVAA_SIGNIFICANCE", default=0.01)
CVAA_TRAIN_MIN_CONFIDENCE: float = env.float("CVAA_TRAIN_MIN_CONFIDENCE", default=0.8)
CVAA_CAMERA_HFOV_DEG: float = env.float("CVAA_CAMERA_HFOV_DEG", default=81.0)
CVAA_CAMERA_PITCH_DEG: float = env.float("CVAA_CAMERA_PITCH_DEG", default=-90.0)
# Keyframe placements: the confidence under which the workspace draws no footprint, and the errors
# assumed for a telemetry footprint (GPS position in metres; the footprint's relative size error from
# the assumed camera and the height above take-off taken over flat ground; the heading in degrees).
PLACEMENT_MIN_CONFIDENCE: float = env.float("PLACEMENT_MIN_CONFIDENCE", default=0.5)
PLACEMENT_GPS_ERROR_M: float = env.float("PLACEMENT_GPS_ERROR_M", default=3.0)
PLACEMENT_TELEMETRY_SCALE_ERROR: float = env.float("PLACEMENT_TELEMETRY_SCALE_ERROR", default=0.1)
PLACEMENT_HEADING_ERROR_DEG: float = env.float("PLACEMENT_HEADING_ERROR_DEG", default=3.0)
# Releases' "with CVAA" variant: a keyframe placement below this confidence gives no box (the
# question says there is no reliable one rather than pass on a guess).
CVAA_PRIOR_MIN_CONFIDENCE: float = env.float("CVAA_PRIOR_MIN_CONFIDENCE", default=0.5)
MAX_UPLOAD_MB: int = env.int("MAX_UPLOAD_MB", default=2048)
MAX_JSON_KB: int = env.int("MAX_JSON_KB", default=2048)
LOG_LEVEL: str = env.str("LOG_LEVEL", default="INFO")
# Behind HTTPS (production): redirect HTTP, secure cookies and HSTS. Off for the embedded default,
# which serves plain HTTP on 127.0.0.1. A TLS-terminating proxy must send X-Forwarded-Proto.
HTTPS: bool = env.bool("SKYMARK_HTTPS", default=False)
HSTS_SECONDS: int = env.int("HSTS_SECONDS", default=31_536_000 if HTTPS else 0)

# gunicorn (config/gunicorn.py). WEB_CONCURRENCY is the name gunicorn and hosting platforms use. A
# process serves one request at a time (config/gunicorn_worker.py); its threads stream responses to
# clients that read slowly. On the embedded default SQLite runs inside the process, so one process
# per core keeps the cores busy. With a database server a process's core is idle for every round
# trip it waits on, a large share of a request's time once the requests became cheap: one process
# more than the cores served 1.09x the units/s at the benchmark's size with every 8-client p99 lower
# (0.77-0.88x), for 120 MB more (bench/README.md, "One web process more with a database server").
# the cores this process may run on (Linux); elsewhere all the machine's
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
_DATABASE_SERVER = bool(DATABASE_URL) and not DATABASE_URL.startswith("sqlite")
WEB_CONCURRENCY: int = env.int("WEB_CONCURRENCY", default=_CORES + 1 if _DATABASE_SERVER else _CORES)
WEB_THREADS: int = env.int("WEB_THREADS", default=8)
WEB_TIMEOUT: int = env.int("WEB_TIMEOUT", default=120)
