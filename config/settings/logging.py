"""Logging to stderr, level from LOG_LEVEL."""

from config import env

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["stderr"], "level": env.LOG_LEVEL},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
