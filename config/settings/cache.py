"""Cache and sessions.

Redis when REDIS_URL is set; otherwise files under the data folder, which every gunicorn process
and the worker share (a per-process memory cache would let a session ended in one process live on
in another). Sessions are read through the cache and written through to the database, so a
request does not query the session table on every autosave. The Redis cache degrades to a miss
while Redis is down (config/cache.py), so sessions then come from the database and writes such as
saving a mark keep working.
"""

from config import env

if env.REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.DegradingRedisCache",
            "LOCATION": env.REDIS_URL,
            # A Redis that stopped answering costs a request at most this long, once per pause.
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(env.DATA_DIR / "cache"),
        }
    }

SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
