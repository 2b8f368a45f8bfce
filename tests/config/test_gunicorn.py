"""config/gunicorn.py as gunicorn reads it: every setting it names is one gunicorn knows, and a
forked worker gets its garbage collector back and the short lock hand-over (the module says why)."""

from __future__ import annotations

import gc
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gunicorn.config import Config

CONF = Path(__file__).resolve().parents[2] / "config" / "gunicorn.py"


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


def test_a_forked_worker_collects_garbage_and_hands_the_lock_over_often(conf: dict[str, Any]) -> None:
    assert not gc.isenabled()  # the master loads with the collector off
    sys.setswitchinterval(0.005)
    conf["post_fork"](None, None)
    assert gc.isenabled()
    assert sys.getswitchinterval() == pytest.approx(conf["SWITCH_INTERVAL_S"])
    assert conf["SWITCH_INTERVAL_S"] <= 0.001
