from ..errors import MediaError


class CheckpointError(MediaError):
    """A model file cannot be used: missing, unreadable, not a CVAA checkpoint, or its weights do not
    match their recorded hash. The message starts with the file's name."""
