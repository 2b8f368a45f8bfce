"""Ground control points from a CSV file. Kept apart from ortho.py so that reading an upload's control
points (a web request) does not import OpenCV and GDAL, which only the orthorectification needs."""

from __future__ import annotations

import csv
from pathlib import Path

from ..errors import MediaError

# Column names accepted for each GCP field (lower case); the first is the Särö CSV's own.
GCP_COLUMNS = {
    "x": ("x_px_1080p", "x", "x_px", "px_x", "pixel_x", "col", "column"),
    "y": ("y_px_1080p", "y", "y_px", "px_y", "pixel_y", "row"),
    "lat": ("latitude", "lat"),
    "lon": ("longitude", "lon", "lng", "long"),
}


def read_gcp_csv(path: Path) -> list[tuple[float, float, float, float]]:
    """Control points (x, y, lat, lon) from a CSV with a header naming pixel x/y and latitude/longitude
    (the Särö CSV's x_px_1080p, y_px_1080p, latitude, longitude, or plain x, y, lat, lon)."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise MediaError(f"{path.name}: not a readable CSV file ({exc})") from exc
    if not rows:
        raise MediaError(f"{path.name}: no control points (the CSV has no data rows)")
    columns = {name.strip().lower(): name for name in rows[0] if name}
    picked = {}
    for field, names in GCP_COLUMNS.items():
        found = next((columns[n] for n in names if n in columns), None)
        if found is None:
            raise MediaError(
                f"{path.name}: no {field} column (looked for {', '.join(names)}; found {', '.join(columns)})"
            )
        picked[field] = found
    points = []
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        try:
            x, y, lat, lon = (float(row[picked[f]]) for f in ("x", "y", "lat", "lon"))
        except (TypeError, ValueError) as exc:
            raise MediaError(f"{path.name}: line {number} has a missing or non-numeric value ({exc})") from exc
        points.append((x, y, lat, lon))
    return points
