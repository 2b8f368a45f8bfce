"""Charts as inline SVG, drawn on the server (no script, nothing fetched from elsewhere). Pure:
rows in, markup out; every text is escaped."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from django.utils.safestring import SafeString, mark_safe

ROW_HEIGHT = 22
LABEL_WIDTH = 170
BAR_WIDTH = 300
VALUE_WIDTH = 70


def _fmt(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value * 100:.1f} %"
    if unit == "s":
        return f"{value:.1f} s"
    return f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


def bar_chart(
    rows: Sequence[tuple[str, float | None]], *, unit: str = "", scale_max: float | None = None, title: str = ""
) -> SafeString:
    """Horizontal bars, one row per (label, value); None draws no bar and reads "—". `unit` "%"
    takes values in [0, 1]; `scale_max` fixes the full width (1 for shares), else the largest value."""
    values = [v for _, v in rows if v is not None]
    top = scale_max if scale_max is not None else max([*values, 0.0])
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    height = max(1, len(rows)) * ROW_HEIGHT + 6
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' aria-label="{escape(title)}"><title>{escape(title)}</title>',
        f'<line class="axis" x1="{LABEL_WIDTH}" y1="0" x2="{LABEL_WIDTH}" y2="{height}"/>',
    ]
    for i, (label, value) in enumerate(rows):
        y = i * ROW_HEIGHT + 4
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{escape(label[:28])}</text>')
        if value is None:
            parts.append(f'<text x="{LABEL_WIDTH + 6}" y="{y + 14}">—</text>')
            continue
        length = 0.0 if top <= 0 else max(0.0, min(1.0, value / top)) * BAR_WIDTH
        parts.append(
            f'<rect class="bar" x="{LABEL_WIDTH}" y="{y + 2}" width="{length:.1f}" height="{ROW_HEIGHT - 8}">'
            f"<title>{escape(label)}: {escape(_fmt(value, unit))}</title></rect>"
        )
        parts.append(f'<text x="{LABEL_WIDTH + length + 6:.1f}" y="{y + 14}">{escape(_fmt(value, unit))}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped


def interval_chart(rows: Sequence[tuple[str, float, float | None, float | None]], *, title: str = "") -> SafeString:
    """A point with its interval per row, (label, value, low, high), all in [0, 1]; a row without
    an interval (too few scenes) shows the point alone."""
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH + 110  # room for "99.9 [99.9, 100.0]"
    height = max(1, len(rows)) * ROW_HEIGHT + 6
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' aria-label="{escape(title)}"><title>{escape(title)}</title>',
        f'<line class="axis" x1="{LABEL_WIDTH}" y1="0" x2="{LABEL_WIDTH}" y2="{height}"/>',
        f'<line class="axis" x1="{LABEL_WIDTH + BAR_WIDTH}" y1="0" x2="{LABEL_WIDTH + BAR_WIDTH}" y2="{height}"/>',
    ]
    for i, (label, value, low, high) in enumerate(rows):
        y = i * ROW_HEIGHT + 4 + ROW_HEIGHT / 2
        xv = LABEL_WIDTH + max(0.0, min(1.0, value)) * BAR_WIDTH
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 4}" text-anchor="end">{escape(label[:28])}</text>')
        if low is not None and high is not None:
            x0, x1 = (LABEL_WIDTH + max(0.0, min(1.0, v)) * BAR_WIDTH for v in (low, high))
            parts.append(f'<line x1="{x0:.1f}" y1="{y}" x2="{x1:.1f}" y2="{y}" stroke="#4c84e0" stroke-width="2"/>')
        parts.append(f'<circle class="bar" cx="{xv:.1f}" cy="{y}" r="4"/>')
        span = f"[{low * 100:.1f}, {high * 100:.1f}]" if low is not None and high is not None else "(too few scenes)"
        text = f"{value * 100:.1f} {span}"
        parts.append(f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 4}">{escape(text)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped


def target_chart(rows: Sequence[tuple[str, int, int]], *, title: str = "") -> SafeString:
    """Items against a plan, one row per (label, count, target): a bar for the count, a tick at the
    target (none when it is 0), and "count / target" as text; the scale is the larger of both."""
    top = max([1, *(max(c, t) for _, c, t in rows)])
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH + 20
    height = max(1, len(rows)) * ROW_HEIGHT + 6
    parts = [
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}"'
        f' aria-label="{escape(title)}"><title>{escape(title)}</title>',
        f'<line class="axis" x1="{LABEL_WIDTH}" y1="0" x2="{LABEL_WIDTH}" y2="{height}"/>',
    ]
    for i, (label, count, target) in enumerate(rows):
        y = i * ROW_HEIGHT + 4
        length = count / top * BAR_WIDTH
        text = f"{count} / {target}" if target else f"{count}"
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{escape(label[:28])}</text>')
        parts.append(
            f'<rect class="bar" x="{LABEL_WIDTH}" y="{y + 2}" width="{length:.1f}" height="{ROW_HEIGHT - 8}"'
            f' data-task="{escape(label)}" data-count="{count}" data-target="{target}">'
            f"<title>{escape(label)}: {escape(text)}</title></rect>"
        )
        if target:
            x = LABEL_WIDTH + target / top * BAR_WIDTH
            parts.append(f'<line class="target" x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + ROW_HEIGHT - 4}"/>')
        end = LABEL_WIDTH + max(length, target / top * BAR_WIDTH) + 6
        parts.append(f'<text x="{end:.1f}" y="{y + 14}">{escape(text)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every text above is escaped
