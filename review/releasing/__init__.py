"""Releasing: freezing approved items into versioned releases with a sha256 manifest."""
