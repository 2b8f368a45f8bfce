"""config/gunicorn.py as gunicorn reads it: every setting it names is one gunicorn knows, its worker
pulls connections with keep-alive off, a forked worker gets its garbage collector back and the short
lock hand-over, and the master loads what a worker's first requests would otherwise import (the
module says why)."""

from __future__ import annotations

import gc
import runpy
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from gunicorn.config import Config

from tests.factories import AnnotatorFactory, SceneFactory
from tests.probe import ROOT, fresh_probe
from tests.workers import database_url

CONF = ROOT / "config" / "gunicorn.py"


@pytest.fixture
def conf() -> Iterator[dict[str, Any]]:
    """The module's names; loading it turns this process's collector off (as in gunicorn's master),
    so both that and the switch interval are put back."""
    was_enabled, was_interval = gc.isenabled(), sys.getswitchinterval()
    try:
        yield runpy.run_path(str(CONF))
    finally:
        sys.setswitchinterval(was_interval)
        (gc.enable if was_enabled else gc.disable)()


def test_the_settings_are_gunicorns_own(conf: dict[str, Any]) -> None:
    names = {k for k in conf if k.islower() and not k.startswith("_")}
    known = set(Config().settings)
    assert {"workers", "threads", "timeout", "preload_app", "when_ready", "post_fork"} <= names & known
    assert names - known == {"gc", "sys", "env"}, "a setting gunicorn does not know would be ignored"


def test_a_process_pulls_its_connections_and_streams_in_threads(conf: dict[str, Any]) -> None:
    # config/gunicorn_worker.py says why; tests/config/test_gunicorn_worker.py serves with it
    assert conf["worker_class"] == "config.gunicorn_worker.PullWorker"
    assert conf["keepalive"] == 0, "a kept-alive connection brings its next request to a busy process"
    assert conf["threads"] > 1, "a stream to a slow reader would hold the process"


def test_a_forked_worker_collects_garbage_and_hands_the_lock_over_often(conf: dict[str, Any]) -> None:
    assert not gc.isenabled()  # the master loads with the collector off
    sys.setswitchinterval(0.005)
    conf["post_fork"](None, None)
    assert gc.isenabled()
    assert sys.getswitchinterval() == pytest.approx(conf["SWITCH_INTERVAL_S"])
    assert conf["SWITCH_INTERVAL_S"] <= 0.001


# Runs in a fresh interpreter, as gunicorn's master then a worker would: the application loaded,
# when_ready, then a signed-in annotator's first requests in a thread of their own; prints the
# modules those requests imported.
FIRST_REQUESTS = r"""
import json, os, runpy, sys, threading

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.conf import settings
from django.test import Client
from django.test.utils import setup_test_environment

conf = runpy.run_path("config/gunicorn.py")
conf["when_ready"](type("Server", (), {"cfg": type("Cfg", (), {"preload_app": True})()})())
setup_test_environment()
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # as the factories hashed
request = json.loads(sys.argv[1])
client = Client()
client.handler.load_middleware()  # what WSGIHandler does when the application is loaded
before, statuses = set(sys.modules), {}


def first_requests():
    login = {"username": request["username"], "password": request["password"]}
    statuses["login"] = client.post("/login/", login).status_code
    statuses["scenes"] = client.get("/api/scenes/").status_code
    statuses["workspace"] = client.get(f"/scenes/{request['scene_id']}/workspace/").status_code


thread = threading.Thread(target=first_requests)
thread.start()
thread.join()
print("PROBE-RESULT " + json.dumps({"statuses": statuses, "imported": sorted(set(sys.modules) - before)}))
"""


@pytest.mark.django_db(transaction=True)  # committed rows, so the probe's own connection sees them
def test_a_workers_first_requests_import_nothing_the_master_could_have(settings: Any) -> None:
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    request = {"username": annotator.username, "password": "pw-test-12345", "scene_id": scene.id}
    extra = {"DATABASE_URL": database_url(), "MEDIA_ROOT": str(settings.MEDIA_ROOT)}
    result = fresh_probe(FIRST_REQUESTS, request, extra)
    assert result["statuses"] == {"login": 302, "scenes": 200, "workspace": 200}
    # a codec the standard library loads on first use is all that may be left
    assert [m for m in result["imported"] if not m.startswith("encodings.")] == [], result["imported"]
