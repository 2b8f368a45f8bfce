"""Hypothesis settings for the property tests here: derandomized (a failure reproduces on every run
and on CI), no example database written into the checkout, no deadline on a shared machine."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "skymark",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("skymark")
