"""annotator.compiling.modelview.cache: a worker decodes a satellite image once for many items; the
views drawn from what it kept are the bytes drawn from the file; a changed file is read again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotator.compiling.modelview import model_view_render
from annotator.compiling.modelview.cache import base_cache
from annotator.models import ModelView
from tests.annotator.compiling.modelview.views import item_on, pending_views, textured_image, textured_png

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def cold_cache() -> Iterator[None]:
    base_cache().clear()
    yield
    base_cache().clear()


def _render(view: ModelView) -> bytes:
    assert model_view_render(view_id=view.id) is True
    view.refresh_from_db()
    assert view.state == "succeeded", view.error
    return default_storage.open(view.image.name).read()


def test_items_of_one_image_decode_it_once_and_give_the_same_bytes_as_a_cold_read(annotator: Any) -> None:
    # given three items drawn alike on one image
    item = item_on(textured_image(), annotator)
    first, second, third = pending_views(item, 3)
    # when two are rendered one after the other, the third with nothing kept
    hits = base_cache().hits
    warm = [_render(first), _render(second)]
    base_cache().clear()
    cold = _render(third)
    # then the second was drawn from the kept image, and all three are the same bytes
    assert base_cache().hits == hits + 1
    assert warm == [cold, cold]


def test_a_changed_image_file_is_read_again_not_served_from_the_cache(annotator: Any) -> None:
    # given a view rendered (its image now kept decoded)
    image = textured_image(seed=1)
    item = item_on(image, annotator)
    before, after = pending_views(item, 2)
    old = _render(before)
    misses = base_cache().misses
    # when the stored file is replaced by other pixels of the same size (the display re-rendered)
    default_storage.delete(image.file.name)
    assert default_storage.save(image.file.name, ContentFile(textured_png(640, 480, seed=2))) == image.file.name
    # then the next view reads the new file: a miss, and other bytes
    new = _render(after)
    assert base_cache().misses == misses + 1
    assert new != old
