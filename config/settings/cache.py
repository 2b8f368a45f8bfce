"""Cache and sessions.

Redis when REDIS_URL is set; otherwise files under the data folder, which every gunicorn process
and the worker share (a per-process memory cache would let a session ended in one process live on
in another). Sessions are not in the cache: a request reads its session row and its user in one
query (annotator.access.sessions), one round trip where the cache and the user's query made two.
The Redis cache degrades to a miss while Redis is down (config/cache.py), so writes such as saving a
mark keep working.
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

# In the database, each read with its user in one query (annotator.access.sessions).
SESSION_ENGINE = "annotator.access.sessions"
