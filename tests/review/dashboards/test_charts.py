"""review.dashboards.charts: inline SVG bars and intervals, escaped, scaled to their maximum."""

from __future__ import annotations

import re

from review.dashboards.charts import BAR_WIDTH, bar_chart, interval_chart


def _widths(svg: str) -> list[float]:
    return [float(w) for w in re.findall(r'<rect class="bar" [^>]*width="([\d.]+)"', svg)]


def test_bars_scale_to_the_largest_value_and_read_their_values() -> None:
    svg = str(bar_chart([("rev1", 10), ("rev2", 5), ("rev3", None)], title="Open"))
    assert svg.startswith('<svg class="chart"') and "<title>Open</title>" in svg
    assert _widths(svg) == [BAR_WIDTH, BAR_WIDTH / 2]
    assert ">10<" in svg and ">5<" in svg and ">—<" in svg


def test_shares_use_a_fixed_scale_and_percent() -> None:
    svg = str(bar_chart([("Target Visibility", 0.25)], unit="%", scale_max=1))
    assert _widths(svg) == [BAR_WIDTH / 4] and "25.0 %" in svg


def test_labels_are_escaped() -> None:
    svg = str(bar_chart([("<script>alert(1)</script>", 1)], title='"x"'))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and 'aria-label="&quot;x&quot;"' in svg


def test_intervals_draw_point_and_range() -> None:
    svg = str(interval_chart([("Overall", 0.9, 0.8, 0.95)]))
    assert "90.0 [80.0, 95.0]" in svg and svg.count("<circle") == 1
