"""Code run in a fresh interpreter, for what this test process cannot show any more (it has long
imported everything): the probe gets `argument` as JSON in argv[1] and prints its answer as one
line, "PROBE-RESULT " and JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MARK = "PROBE-RESULT "


def fresh_probe(code: str, argument: Any, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Runs `code` at the repository root with the test's environment (its own settings module)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SECRET_KEY": os.environ.get("SECRET_KEY") or "probe-test"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(extra_env or {})
    done = subprocess.run([sys.executable, "-c", code, json.dumps(argument)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    assert done.returncode == 0 and lines, f"the probe failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    return dict(json.loads(lines[-1].removeprefix(MARK)))
