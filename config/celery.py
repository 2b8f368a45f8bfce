"""The Celery application; workers start with `celery -A config worker`."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("skymark")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each stage keeps its Celery entry points in its own tasks.py.
app.autodiscover_tasks(["annotator.processing", "annotator.compiling", "review.releasing"])
