"""Importing media_tools and media_tools.cvaa must not import torch (web processes stay light)."""

from __future__ import annotations

import subprocess
import sys


def test_torch_loads_only_when_a_model_part_is_used() -> None:
    code = (
        "import sys, media_tools, media_tools.cvaa as c\n"
        "print('torch' in sys.modules)\n"
        "c.WindowSpec(); c.SiftLocator\n"
        "print('torch' in sys.modules)\n"
        "c.CvaaEncoder\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True"]
