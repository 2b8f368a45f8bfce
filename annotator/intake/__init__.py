"""Intake: manifests, uploads and scene import (validate everything first, then all-or-nothing),
and who is assigned to annotate a scene."""
