class MediaError(Exception):
    """A media file cannot be used; the message names the file and the reason for a person."""
