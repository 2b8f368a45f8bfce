"""The Dockerfile and docker-compose.yml agree on how the GPU worker gets a CUDA build of PyTorch: the
Dockerfile declares TORCH_INDEX (the CPU wheels by default) and installs the pinned torch from it alone,
and compose builds worker-gpu with a CUDA index and reserves a GPU for it. No Docker engine runs here: the
files are parsed, and the shell that reads the torch pin runs for real against pyproject.toml."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import yaml
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CUDA_INDEX = re.compile(r"^https://download\.pytorch\.org/whl/cu\d+$")


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def _torch_run() -> tuple[int, str]:
    steps = _instructions()
    runs = [(i, args) for i, (op, args) in enumerate(steps) if op == "RUN" and "torch==" in args]
    assert len(runs) == 1, runs
    return runs[0]


def test_torch_index_is_declared_with_the_cpu_wheels_as_default_before_torch_is_installed() -> None:
    steps = _instructions()
    args = [(i, a) for i, (op, a) in enumerate(steps) if op == "ARG" and a.startswith("TORCH_INDEX")]
    assert [a for _, a in args] == [f"TORCH_INDEX={CPU_INDEX}"]
    at, run = _torch_run()
    first_from = next(i for i, (op, _) in enumerate(steps) if op == "FROM")
    assert first_from < args[0][0] < at  # declared in the build stage, before it is used
    # torch comes from that index alone (no PyPI fallback that could hand over PyPI's CUDA wheel)
    assert '--index-url "$TORCH_INDEX"' in run and "--extra-index-url" not in run
    # and before the project's own install, which would otherwise fetch torch from PyPI
    project = next(i for i, (op, a) in enumerate(steps) if op == "RUN" and "pip install -e ." in a)
    assert at < project


def test_the_torch_pin_read_by_the_build_is_pyprojects_and_accepts_the_index_builds(tmp_path: Path) -> None:
    _, run = _torch_run()
    read_pin = run.split("&&")[0].strip()  # TORCH_PIN="$(sed ... pyproject.toml)"
    assert read_pin.startswith("TORCH_PIN=")
    (tmp_path / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    out = subprocess.run(
        ["sh", "-c", f'{read_pin}; printf %s "$TORCH_PIN"'], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert f"torch=={out}" in deps
    # the wheels of PyTorch's indexes carry a local version; pip's == without one accepts them
    assert all(f"{out}+{tag}" in SpecifierSet(f"=={out}") for tag in ("cpu", "cu124"))


def test_the_documented_gpu_build_command_names_a_cuda_index() -> None:
    header = (ROOT / "Dockerfile").read_text().split("FROM", 1)[0]
    documented = re.search(r"--build-arg TORCH_INDEX=(\S+)", header)
    assert documented and CUDA_INDEX.match(documented.group(1))


def test_compose_builds_the_gpu_worker_with_a_cuda_torch_and_reserves_a_gpu() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    gpu = services["worker-gpu"]
    index = gpu["build"]["args"]["TORCH_INDEX"]
    default = re.fullmatch(r"\$\{TORCH_INDEX_GPU:-(\S+)\}", index)
    assert default and CUDA_INDEX.match(default.group(1)), index
    assert gpu["build"]["context"] == "."
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert devices == [{"driver": "nvidia", "count": 1, "capabilities": ["gpu"]}]
    assert gpu["environment"]["CVAA_DEVICE"] == "cuda"
    assert "-Q" in gpu["command"] and gpu["command"][gpu["command"].index("-Q") + 1] == "gpu"
    # the other services keep the CPU image: no build argument, another tag, no GPU
    for name in ("web", "worker", "migrate"):
        service = services[name]
        assert service["build"] == "." and service["image"] != gpu["image"], name
        assert "deploy" not in service and "CVAA_DEVICE" not in service["environment"], name
    # the GPU worker still gets every setting the others have
    assert set(services["worker"]["environment"]) < set(gpu["environment"])


def test_the_torch_install_line_is_valid_shell() -> None:
    _, run = _torch_run()
    # sh -n parses without running: a broken quote or continuation would only show in a real build
    parsed = subprocess.run(["sh", "-n", "-c", run], capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
