"""Output shapes of items: the model view's file URLs are reverse()'s, built from one reversed pattern."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, get_script_prefix, reverse, set_script_prefix

from annotator.compiling.serializers import _file_url

NAMES = ["view.jpg", "video.mp4", "option-A.jpg", "option-é ü.jpg", "a b%20c.jpg", "option-?#&=+.jpg", "x:@~!$'()*,;"]


@pytest.mark.parametrize("prefix", ["/", "/sub/path/", "/with space/é/"])
def test_each_file_url_is_reverses_under_any_script_prefix(prefix: str) -> None:
    before = get_script_prefix()
    set_script_prefix(prefix)
    try:
        for item_id in (1, 42, 987_654_321_987, 10**15):
            for name in NAMES:
                assert _file_url(item_id, name) == reverse("model-view-file", args=[item_id, name]), (item_id, name)
    finally:
        set_script_prefix(before)


@pytest.mark.parametrize("name", ["", "a/b.jpg"])
def test_what_reverse_refuses_is_refused(name: str) -> None:
    with pytest.raises(NoReverseMatch):
        _file_url(3, name)
