"""media_tools.geo.render: display copies of every real satellite image, windowed, atomic, refusing bad files."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rasterio
import rasterio.io
from PIL import Image

from media_tools.errors import MediaError
from media_tools.geo import render
from media_tools.geo.render import render_display

# The PNG/JPEG outputs carry no georeference by design; reading them back need not warn.
pytestmark = pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")

# name: (bands shown as R, G, B; alpha kept in a PNG) — SOURCES.md: the multispectral band order is B, G, R, NIR
EXPECTED = {
    "spacenet6_rotterdam_pan_0p5m.tif": ((1, 1, 1), False),
    "spacenet6_rotterdam_ms4band_1m_float64.tif": ((3, 2, 1), False),
    "spacenet6_rotterdam_rgb8_1m_derived.tif": ((1, 2, 3), False),
    "webodm_drone_orthophoto_0p5m.tif": ((1, 2, 3), True),
    "landsat7_bahamas_RGB.byte.tif": ((1, 2, 3), True),
    "opencv_aero1_oblique_aerial.jpg": ((1, 2, 3), False),
    "opencv_aero3_oblique_aerial.jpg": ((1, 2, 3), False),
}


def _read(path: Path) -> tuple[str, np.ndarray]:
    with rasterio.open(path) as ds:
        return ds.driver, ds.read()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_satellite_file_has_an_expectation(testdata: Path) -> None:
    assert sorted(p.name for p in (testdata / "satellite").iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_render_every_real_image_to_png(testdata: Path, tmp_path: Path, name: str) -> None:
    # given a real image of any band count and data type
    src = testdata / "satellite" / name
    before = _sha256(src)
    bands, alpha = EXPECTED[name]
    with rasterio.open(src) as ds:
        width, height, dtype = ds.width, ds.height, ds.dtypes[0]
    progress: list[int] = []

    # when it is rendered for display
    info = render_display(src, tmp_path / "display.png", on_progress=progress.append)

    # then an 8-bit RGB(A) PNG of the same size, with the expected bands, and the original untouched
    driver, pixels = _read(tmp_path / "display.png")
    assert driver == "PNG" and pixels.dtype == np.uint8
    assert pixels.shape == (4 if alpha else 3, height, width)
    assert (info.width, info.height, info.bands_used, info.alpha) == (width, height, bands, alpha)
    assert progress == sorted(progress) and (progress[0], progress[-1]) == (0, 100)
    assert _sha256(src) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["display.png"]
    if dtype == "uint8":
        # 8-bit sources already hold display values: they pass through unchanged
        assert info.stretch == ((0.0, 255.0),) * 3
        with rasterio.open(src) as ds:
            assert np.array_equal(pixels[:3], ds.read(list(bands)))
    else:
        # a 2..98 % stretch: about 2 % of the valid pixels clip at each end, the rest spread over 0..255
        with rasterio.open(src) as ds:
            for band, (low, high) in zip(bands, info.stretch, strict=True):
                values = ds.read(band).astype(float)  # small images: the "overview" is every pixel
                assert (low, high) == pytest.approx(tuple(np.percentile(values, [2, 98])))
        for channel in pixels[:3]:
            assert 0.01 < np.mean(channel == 0) < 0.04 and 0.01 < np.mean(channel == 255) < 0.04
            assert np.std(channel) > 40


def test_float64_multispectral_looks_like_the_derived_rgb(testdata: Path, tmp_path: Path) -> None:
    # given the float64 B,G,R,NIR image and the 8-bit RGB that SOURCES.md derived from it with GDAL
    sat = testdata / "satellite"

    # when both are rendered
    render_display(sat / "spacenet6_rotterdam_ms4band_1m_float64.tif", tmp_path / "ms.png")
    render_display(sat / "spacenet6_rotterdam_rgb8_1m_derived.tif", tmp_path / "rgb.png")

    # then each channel of the float64 rendering correlates with the derived true colour
    ms = np.asarray(Image.open(tmp_path / "ms.png"), float)
    rgb = np.asarray(Image.open(tmp_path / "rgb.png"), float)
    for c in range(3):
        assert np.corrcoef(ms[..., c].ravel(), rgb[..., c].ravel())[0, 1] > 0.9


def test_alpha_and_nodata_become_transparency(testdata: Path, tmp_path: Path) -> None:
    sat = testdata / "satellite"
    # the orthophoto's alpha band is kept as it is
    render_display(sat / "webodm_drone_orthophoto_0p5m.tif", tmp_path / "ortho.png")
    with rasterio.open(sat / "webodm_drone_orthophoto_0p5m.tif") as ds:
        source_alpha = ds.read(4)
    assert np.array_equal(_read(tmp_path / "ortho.png")[1][3], source_alpha)
    assert 0 < np.mean(source_alpha == 0) < 1

    # Landsat's nodata=0 becomes alpha 0 exactly where all three bands are 0
    render_display(sat / "landsat7_bahamas_RGB.byte.tif", tmp_path / "landsat.png")
    with rasterio.open(sat / "landsat7_bahamas_RGB.byte.tif") as ds:
        nodata = np.all(ds.read() == 0, axis=0)
    alpha = _read(tmp_path / "landsat.png")[1][3]
    assert np.array_equal(alpha == 0, nodata) and nodata.any()


def test_jpeg_output_has_no_alpha_and_tif_output_is_tiled_and_georeferenced(testdata: Path, tmp_path: Path) -> None:
    src = testdata / "satellite" / "webodm_drone_orthophoto_0p5m.tif"

    jpeg = render_display(src, tmp_path / "d.jpg")
    tif = render_display(src, tmp_path / "d.tif")

    assert jpeg.alpha is False and _read(tmp_path / "d.jpg")[1].shape == (3, 212, 212)
    assert tif.alpha is True
    with rasterio.open(tmp_path / "d.tif") as out, rasterio.open(src) as ds:
        assert (out.driver, out.count, out.profile["tiled"], out.block_shapes[0]) == ("GTiff", 4, True, (256, 256))
        assert (out.crs, out.transform) == (ds.crs, ds.transform)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jpg", "d.tif"]


def test_explicit_bands(testdata: Path, tmp_path: Path) -> None:
    src = testdata / "satellite" / "spacenet6_rotterdam_ms4band_1m_float64.tif"
    # one band (NIR) is shown as grey
    info = render_display(src, tmp_path / "nir.png", bands=[4])
    pixels = _read(tmp_path / "nir.png")[1]
    assert info.bands_used == (4, 4, 4)
    assert np.array_equal(pixels[0], pixels[1]) and np.array_equal(pixels[1], pixels[2])
    # a false-colour composite
    assert render_display(src, tmp_path / "cir.png", bands=(4, 3, 2)).bands_used == (4, 3, 2)
    # a band that does not exist is refused
    with pytest.raises(MediaError, match=r"bands \[5\] cannot be shown; give 1 or 3 band numbers from 1 to 4"):
        render_display(src, tmp_path / "bad.png", bands=[5])
    assert not (tmp_path / "bad.png").exists()


def test_palette_png_is_shown_in_its_colours(tmp_path: Path) -> None:
    # given a palette PNG (index 0 = red, 1 = blue)
    img = Image.new("P", (30, 20), 0)
    img.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    img.paste(1, (0, 0, 10, 20))
    img.save(tmp_path / "map.png")

    render_display(tmp_path / "map.png", tmp_path / "out.png")

    pixels = np.asarray(Image.open(tmp_path / "out.png").convert("RGB"))
    assert tuple(pixels[5, 5]) == (0, 0, 255) and tuple(pixels[5, 25]) == (255, 0, 0)


def test_large_images_are_read_in_windows_and_a_decimated_overview(
    testdata: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given small windows and a small statistics budget, so the 600x600 pan image counts as "large"
    src = testdata / "satellite" / "spacenet6_rotterdam_pan_0p5m.tif"
    whole = render_display(src, tmp_path / "whole.png")
    monkeypatch.setattr(render, "WINDOW", 128)
    monkeypatch.setattr(render, "STATS_PIXELS", 10_000)
    reads: list[int] = []
    original = rasterio.io.DatasetReader.read

    def counting_read(self: Any, *args: Any, **kwargs: Any) -> Any:
        data = original(self, *args, **kwargs)
        reads.append(data.shape[-1] * data.shape[-2])
        return data

    monkeypatch.setattr(rasterio.io.DatasetReader, "read", counting_read)

    # when rendered
    windowed = render_display(src, tmp_path / "windowed.png")

    # then no read held more than one window or the overview, and the picture is the same up to the stretch
    assert reads and max(reads) <= 128 * 128
    assert len(reads) > 600 * 600 / (128 * 128)
    for (lo, hi), (wlo, whi) in zip(whole.stretch, windowed.stretch, strict=True):
        assert abs(lo - wlo) < 0.05 * (hi - lo) and abs(hi - whi) < 0.05 * (hi - lo)
    a = _read(tmp_path / "whole.png")[1].astype(float)
    b = _read(tmp_path / "windowed.png")[1].astype(float)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.999


@pytest.mark.parametrize(
    "kind", ["huge", "png_named_jpg", "text_named_tif", "empty", "zero_pixel_size", "unknown_crs", "truncated_jpeg"]
)
@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_bad_images_are_refused_and_leave_nothing(
    broken_images: dict[str, tuple[Path, str]], tmp_path: Path, kind: str, suffix: str
) -> None:
    src, message = broken_images[kind]
    out = tmp_path / "out"
    with pytest.raises(MediaError) as err:
        render_display(src, out / f"display{suffix}")
    assert str(err.value).startswith(message)
    assert not out.exists() or list(out.iterdir()) == []


def test_unknown_output_suffix_and_overwriting_the_original_are_refused(testdata: Path, tmp_path: Path) -> None:
    src = testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg"
    with pytest.raises(MediaError, match=r"^display\.webp: a display copy must end in \.png, \.jpg or \.tif$"):
        render_display(src, tmp_path / "display.webp")
    copy = tmp_path / "aero.jpg"
    copy.write_bytes(src.read_bytes())
    with pytest.raises(MediaError, match="must not overwrite the original"):
        render_display(copy, copy)
    assert copy.read_bytes() == src.read_bytes()
