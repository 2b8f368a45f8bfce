"""media_tools.geo.ortho: the Särö frame as a north-up orthophoto, and GCP CSV reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import rasterio
from pyproj import Geod

from media_tools.errors import MediaError
from media_tools.geo import georef_from_gcps, georef_from_geotiff, orthorectify, read_gcp_csv

GEOD = Geod(ellps="WGS84")
Gcps = list[tuple[float, float, float, float]]


def test_read_saro_gcp_csv(testdata: Path) -> None:
    gcps = read_gcp_csv(testdata / "videos" / "saro_roundabout_gcp_pixels_1080p.csv")
    assert len(gcps) == 6
    assert gcps[0] == (650.62, 187.1, 57.48417200155693, 12.010028962964366)


def test_read_generic_gcp_csv(tmp_path: Path) -> None:
    path = tmp_path / "gcps.csv"
    path.write_text("name,X,Y,Lat,Lon\np1,10,20,57.1,12.2\np2,30.5,40,57.2,12.3\n")
    assert read_gcp_csv(path) == [(10.0, 20.0, 57.1, 12.2), (30.5, 40.0, 57.2, 12.3)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x,y,lat\n1,2,3\n", r"^gcps\.csv: no lon column \(looked for longitude, lon, lng, long; found x, y, lat\)$"),
        ("x,y,lat,lon\n1,2,north,12\n", r"^gcps\.csv: line 2 has a missing or non-numeric value"),
        ("x,y,lat,lon\n", r"^gcps\.csv: no control points \(the CSV has no data rows\)$"),
    ],
)
def test_bad_gcp_csv(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gcps.csv"
    path.write_text(text)
    with pytest.raises(MediaError, match=message):
        read_gcp_csv(path)


@pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")
def test_orthorectify_saro_frame(saro_frame: Path, saro_gcps: Gcps, tmp_path: Path) -> None:
    # given the first frame of the Särö video and its six control points
    dst = tmp_path / "ortho.tif"

    # when orthorectified
    ref = orthorectify(saro_frame, dst, gcps=saro_gcps)

    # then a north-up RGBA GeoTIFF in UTM 33N at the frame's own GSD, with the fit's RMS
    with rasterio.open(dst) as ds:
        t = ds.transform
        assert (ds.driver, ds.count, ds.dtypes[0], ds.crs.to_string()) == ("GTiff", 4, "uint8", "EPSG:32633")
        assert ds.colorinterp[3] == rasterio.enums.ColorInterp.alpha
        assert t.b == 0 and t.d == 0 and t.a > 0 and t.e == -t.a
        alpha = ds.read(4)
        rgb = ds.read([1, 2, 3])
    fit = georef_from_gcps(saro_gcps, width=1920, height=1080)
    assert t.a == pytest.approx(fit.gsd_m(), rel=1e-9) and 0.10 < t.a < 0.12
    assert ref.rms_m == pytest.approx(0.178, abs=0.005)
    assert np.allclose(georef_from_geotiff(dst).matrix, ref.matrix, rtol=1e-12)
    assert (ref.width, ref.height) == (alpha.shape[1], alpha.shape[0])
    # the frame covers its ground footprint and nothing else: outside it alpha is 0 and the colour black
    lon, lat = fit.pixel_to_lonlat(np.array([0, 1920, 1920, 0]), np.array([0, 0, 1080, 1080]))
    x, y = ref.lonlat_to_pixel(lon, lat)
    footprint_px = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert np.count_nonzero(alpha) == pytest.approx(footprint_px, rel=0.01)
    assert not rgb[:, alpha == 0].any()
    # every orthophoto pixel shows the frame pixel that the fit puts at its ground position
    with rasterio.open(saro_frame) as ds:
        frame = ds.read()
    rng = np.random.default_rng(1)
    ys, xs = np.nonzero(alpha == 255)
    pick = rng.choice(len(xs), 3000, replace=False)
    xs, ys = xs[pick], ys[pick]
    fx, fy = fit.lonlat_to_pixel(*ref.pixel_to_lonlat(xs + 0.5, ys + 0.5))
    fx, fy = np.clip(np.floor(fx).astype(int), 0, 1919), np.clip(np.floor(fy).astype(int), 0, 1079)
    difference = np.abs(rgb[:, ys, xs].astype(float) - frame[:, fy, fx].astype(float)).mean()
    assert difference < 2.5  # interpolation only; a one-pixel slip measures about 3.3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ortho.tif"]


def _blob_frame(path: Path, gcps: Gcps) -> None:
    """A black 1920x1080 frame with a Gaussian spot centred exactly on each control point's pixel position:
    the "a" corners in red, the "c" corners in green (the two corners of one marker are ~3 px apart)."""
    ys, xs = np.mgrid[0:1080, 0:1920] + 0.5  # pixel centres in the corner convention
    img = np.zeros((1080, 1920, 3), np.float64)
    for i, (gx, gy, _, _) in enumerate(gcps):
        img[..., i % 2] += 255 * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * 1.2**2))
    with rasterio.open(path, "w", driver="PNG", width=1920, height=1080, count=3, dtype="uint8") as ds:
        ds.write(np.moveaxis(np.clip(np.rint(img), 0, 255).astype(np.uint8), -1, 0))


@pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")
def test_gcp_pixels_land_on_their_lat_lon_in_the_orthophoto(saro_gcps: Gcps, tmp_path: Path) -> None:
    # given spots drawn at the control points' pixel positions
    frame = tmp_path / "spots.png"
    _blob_frame(frame, saro_gcps)

    # when the frame is orthorectified
    ref = orthorectify(frame, tmp_path / "spots.tif", gcps=saro_gcps)

    # then each spot's centre in the orthophoto maps to its surveyed lat/lon within 0.5 m, and to the point
    # the fit predicts within 2 cm (the warp itself adds no offset: no half-pixel slip)
    fit = georef_from_gcps(saro_gcps, width=1920, height=1080)
    with rasterio.open(tmp_path / "spots.tif") as ds:
        image = ds.read([1, 2]).astype(float)
    for i, (gx, gy, lat, lon) in enumerate(saro_gcps):
        ex, ey = ref.lonlat_to_pixel(*fit.pixel_to_lonlat(gx, gy))
        x0, y0 = int(ex) - 8, int(ey) - 8
        patch = image[i % 2, y0 : y0 + 17, x0 : x0 + 17]
        yy, xx = np.mgrid[y0 : y0 + 17, x0 : x0 + 17] + 0.5
        cx, cy = (patch * xx).sum() / patch.sum(), (patch * yy).sum() / patch.sum()
        spot_lon, spot_lat = ref.pixel_to_lonlat(cx, cy)
        predicted_lon, predicted_lat = fit.pixel_to_lonlat(gx, gy)
        assert GEOD.inv(spot_lon, spot_lat, lon, lat)[2] < 0.5
        assert GEOD.inv(spot_lon, spot_lat, predicted_lon, predicted_lat)[2] < 0.02


def test_output_pixel_size_can_be_chosen(saro_frame: Path, saro_gcps: Gcps, tmp_path: Path) -> None:
    ref = orthorectify(saro_frame, tmp_path / "half.tif", gcps=saro_gcps, gsd_m=0.25, model="affine")
    assert ref.gsd_m() == pytest.approx(0.25, rel=0.002)
    assert ref.rms_m == pytest.approx(0.27, abs=0.04)


@pytest.mark.parametrize("kind", ["huge", "png_named_jpg", "text_named_tif", "empty", "truncated_jpeg"])
def test_bad_frames_are_refused_and_leave_nothing(
    broken_images: dict[str, tuple[Path, str]], saro_gcps: Gcps, tmp_path: Path, kind: str
) -> None:
    src, message = broken_images[kind]
    out = tmp_path / "out"
    with pytest.raises(MediaError) as err:
        orthorectify(src, out / "ortho.tif", gcps=saro_gcps)
    assert str(err.value).startswith(message)
    assert not out.exists() or list(out.iterdir()) == []


def test_bad_requests_are_refused_and_leave_nothing(saro_frame: Path, saro_gcps: Gcps, tmp_path: Path) -> None:
    with pytest.raises(MediaError, match=r"^ortho\.png: an orthophoto is written as a GeoTIFF; name it \.tif$"):
        orthorectify(saro_frame, tmp_path / "ortho.png", gcps=saro_gcps)
    with pytest.raises(MediaError, match=r"^frame0\.png: a affine fit needs at least 3 control points, got 2"):
        orthorectify(saro_frame, tmp_path / "ortho.tif", gcps=saro_gcps[:2])
    with pytest.raises(MediaError, match=r"^frame0\.png: the orthophoto would be \d+×\d+ px at 0\.001 m/px"):
        orthorectify(saro_frame, tmp_path / "ortho.tif", gcps=saro_gcps, gsd_m=0.001)
    assert list(tmp_path.iterdir()) == []
