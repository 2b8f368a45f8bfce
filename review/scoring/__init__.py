"""Scoring: answer parsing and the benchmark metrics, pure functions over a frozen release."""
