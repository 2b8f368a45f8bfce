"""Small filters for the review pages."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """mapping[key], or None (reason codes to their words, rows of a table by name)."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def percent(value: Any, digits: int = 1) -> str:
    """0.873 -> "87.3 %"; None -> "—"."""
    if value is None:
        return "—"
    return f"{float(value) * 100:.{int(digits)}f} %"


@register.filter
def number(value: Any, digits: int = 2) -> str:
    """A statistic with its digits; None (not measurable yet) -> "—"."""
    if value is None:
        return "—"
    return f"{float(value):.{int(digits)}f}"


@register.filter
def points(value: Any, digits: int = 1) -> str:
    """A difference of two shares in percentage points, signed: 0.043 -> "+4.3"; None -> "—"."""
    if value is None:
        return "—"
    return f"{float(value) * 100:+.{int(digits)}f}"
