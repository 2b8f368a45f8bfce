"""Dashboards: each role's overview pages."""
