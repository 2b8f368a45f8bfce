"""The satellite image's valid-data area (media_tools.imagery.valid_area), stored on the image: the
one write. The valid-area job calls it for every imported image; the compiler calls it for an image
processed before that job existed (annotator.compiling.area), so it is traced once either way."""

from __future__ import annotations

import json
from typing import Any

import shapely
from django.db import transaction

from annotator.models import SatelliteImage
from annotator.storage import local_copy
from media_tools.imagery.valid_area import Area, valid_area

# Stored vertices are snapped to this grid in pixels: the trace is only one mask cell accurate
# (several pixels on most images), so more digits would only make the JSON longer.
STORED_GRID_PX = 0.1


def valid_area_geojson(area: Area) -> dict[str, Any]:
    """`area` as a GeoJSON Polygon or MultiPolygon (lists, not tuples), snapped to STORED_GRID_PX."""
    snapped = shapely.set_precision(area, STORED_GRID_PX)
    if snapped.is_empty or not isinstance(snapped, shapely.Polygon | shapely.MultiPolygon):
        return {"type": "MultiPolygon", "coordinates": []}
    return dict(json.loads(shapely.to_geojson(snapped)))


@transaction.atomic
def satellite_image_valid_area_update(*, image_id: int) -> dict[str, Any]:
    """Trace where the image's original file has data and store it on the image (one UPDATE; the
    file is read before it, no row is locked). Returns the stored GeoJSON. Raises MediaError naming
    the file when it cannot be read."""
    image = SatelliteImage.objects.get(id=image_id)
    with local_copy(image.file.name or "") as path:
        data = valid_area_geojson(valid_area(path))
    SatelliteImage.objects.filter(id=image_id).update(valid_area=data)
    return data
