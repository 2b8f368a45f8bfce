"""Compiling: the task catalog, one QA template per task (qa/), compiling drafts (services.py)
and the item lifecycle (lifecycle.py), which owns every item state change."""
