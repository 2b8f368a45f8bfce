"""media_tools.cvaa.encoder: which device a model runs on, and a clear error for one that is not there."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from media_tools.cvaa import (
    CvaaConfig,
    CvaaEncoder,
    CvaaModel,
    DeviceUnavailable,
    SyntheticPairs,
    available_devices,
    pick_device,
    train,
)

NO_CUDA = not torch.cuda.is_available()


def test_no_device_named_picks_cuda_when_there_is_one_else_the_cpu() -> None:
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert pick_device(None).type == expected and pick_device("").type == expected
    assert pick_device("cpu") == torch.device("cpu")
    assert available_devices()[0] == "cpu"


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA")
def test_cuda_without_cuda_names_the_device_and_what_is_available() -> None:
    with pytest.raises(DeviceUnavailable) as caught:
        pick_device("cuda")
    message = str(caught.value)
    assert message.startswith("device 'cuda' is not available: ")
    assert message.endswith("; available here: " + ", ".join(available_devices()))
    if torch.version.cuda is None:
        assert f"this torch ({torch.__version__}) is built without CUDA" in message
    assert isinstance(caught.value, ValueError)


def test_a_gpu_index_past_the_last_gpu_is_refused() -> None:
    beyond = f"cuda:{torch.cuda.device_count()}"
    with pytest.raises(DeviceUnavailable, match=rf"^device '{beyond}' is not available: .*available here: cpu"):
        pick_device(beyond)


@pytest.mark.skipif(torch.backends.mps.is_available(), reason="this machine has MPS")
def test_mps_off_a_mac_is_refused() -> None:
    with pytest.raises(DeviceUnavailable, match=r"^device 'mps' is not available: Apple's Metal \(MPS\) is not"):
        pick_device("mps")


def test_a_name_that_is_no_device_is_refused() -> None:
    with pytest.raises(DeviceUnavailable, match=r"^device 'gpu0' is not a device name \(cpu, cuda, cuda:N, mps\)"):
        pick_device("gpu0")


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA")
def test_encoder_and_training_refuse_before_doing_any_work(tiny: CvaaConfig, tmp_path) -> None:
    with pytest.raises(DeviceUnavailable, match="device 'cuda' is not available"):
        CvaaEncoder(CvaaModel(tiny), device="cuda")
    source = SyntheticPairs.from_config(np.zeros((64, 64, 3), np.uint8), tiny)
    out = tmp_path / "model.pt"
    with pytest.raises(DeviceUnavailable, match="device 'cuda:1' is not available"):
        train(source, tiny, steps=2, device="cuda:1", out=out)
    assert not out.exists()
