"""The statistics libraries load when a figure is computed, not when a web process imports the
scoring, quality and audit modules (or the URL configuration through them)."""

from __future__ import annotations

import os
import subprocess
import sys

HEAVY = ("scipy", "sklearn", "statsmodels", "pandas", "krippendorff")


def test_statistics_libraries_load_on_first_use() -> None:
    code = (
        "import sys, django\n"
        "django.setup()\n"
        "import review.quality.agreement, review.quality.baseline, review.scoring.report, review.scoring.services\n"
        "import review.dashboards.views, review.scoring.views, annotator.compiling.audit, annotator.compiling.views\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "from annotator.compiling.audit import position_bias\n"
        "position_bias([0, 1, 1, 2], 4)\n"
        "print('scipy' in sys.modules)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "test"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split("\n")[:2] == ["[]", "True"]
