"""Run every benchmark in bench/ in turn (`make bench`).

media.py: keyframes against `ffmpeg -i V -vf fps=1 -f null -` (goal <= 1.3x).
tiles.py: build_tiles against `vips dzsave SRC OUT --layout zoomify --tile-size 256` (goal <= 1.2x, and
peak memory far below one decoded copy of the image). Any new bench/*.py script is picked up as well.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELPERS = {
    "run_all.py",
    "scale_seed.py",
    "scale_clients.py",
    "scale_served.py",
    "scale_steps.py",
}  # not benchmarks: this runner, and the seed, clients, servers and steps scale.py uses
for script in sorted(HERE.glob("*.py")):
    if script.name not in HELPERS:
        print(f"== {script.name}", flush=True)
        subprocess.run([sys.executable, str(script)], check=True)
