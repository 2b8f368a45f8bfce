"""Benchmark projects: creating them, their members, what they plan (label set, task mix) and the
pages that show their progress."""
