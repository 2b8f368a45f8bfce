"""Cache and sessions.

Redis when REDIS_URL is set; otherwise files under the data folder, which every gunicorn process
and the worker share (a per-process memory cache would let a session ended in one process live on
in another). Sessions are read through the cache and written through to the database, so a
request does not query the session table on every autosave.
"""

from config import env

if env.REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": env.REDIS_URL}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(env.DATA_DIR / "cache"),
        }
    }

SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
