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


def test_training_and_evaluation_on_arrays_need_neither_gdal_nor_proj() -> None:
    # a GPU machine that trains on prepared arrays (bench/cvaa_gpu.py) may have neither installed
    code = (
        "import sys, media_tools.cvaa as c\n"
        "c.train, c.SyntheticPairs, c.evaluate, c.random_windows, c.WindowIndex, c.SiftLocator, c.CvaaEncoder\n"
        "print(sorted(m for m in ('rasterio', 'pyproj', 'osgeo', 'affine') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]"]
