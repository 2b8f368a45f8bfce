from ..errors import MediaError


class CheckpointError(MediaError):
    """A model file cannot be used: missing, unreadable, not a CVAA checkpoint, or its weights do not
    match their recorded hash. The message starts with the file's name."""


class DeviceUnavailable(ValueError):  # noqa: N818 - the name reads as what happened
    """A torch device was asked for that this machine or this torch build does not have ("cuda" on a
    CPU-only wheel, "cuda:3" with two GPUs, "mps" off a Mac). The message names the device asked for,
    why it cannot be used and the devices that can. A ValueError: the setting is wrong, not the data."""
