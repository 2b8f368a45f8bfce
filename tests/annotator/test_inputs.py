"""annotator.inputs: input fields copied cheaply validate as DRF's own deep copies do, each request
with fields of its own, and a serializer whose fields are not plain keeps DRF's copies."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework import serializers

from annotator.compiling.apis import ItemListApi
from annotator.inputs import FieldsCopied
from annotator.marking.apis import MarkDetailApi, MarkInputSerializer


def _as_drf(cls: type) -> type:
    """The same declared fields through DRF's own get_fields (deep copies)."""
    return type(f"Drf{cls.__name__}", (serializers.Serializer,), {**cls._declared_fields})


LINE = {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}
GOOD_MARK = {
    "satellite_image": 3,
    "kind": "polyline",
    "geometry": LINE,
    "label": "car",
    "time_start": 0.5,
    "time_end": 2.0,
    "vertex_times": [0.5, 2.0],
    "facts": {"reaches": True},
    "client_key": str(uuid.uuid4()),
}
BODIES = [
    GOOD_MARK,
    {"kind": "point"},
    {**GOOD_MARK, "satellite_image": 0, "kind": "circle", "label": "x" * 65, "time_start": -1, "vertex_times": ["a"]},
    {**GOOD_MARK, "vertex_times": [0.1] * 5_001, "facts": [], "client_key": "not a uuid", "time_end": None},
    {"version": 3, "label": "van", "vertex_times": [1, "b"], "time_start": "x"},
    {"task": "region_interaction", "mark_ids": [1, 2], "seed": 7, "active_seconds": 12},
    {"task": "nope", "mark_ids": [], "seed": -1},
    {"task": "region_interaction", "mark_ids": [0, "a"] + [1] * 100},
    "not an object",
]
SERIALIZERS = [MarkInputSerializer, MarkDetailApi.MarkUpdateInputSerializer, ItemListApi.ItemCompileInputSerializer]


@pytest.mark.parametrize("cls", SERIALIZERS)
@pytest.mark.parametrize("body", BODIES)
def test_copied_fields_validate_as_drfs_deep_copies(cls: Any, body: Any) -> None:
    assert issubclass(cls, FieldsCopied)
    ours, drf = cls(data=body), _as_drf(cls)(data=body)
    assert ours.is_valid() == drf.is_valid()
    assert ours.errors == drf.errors
    assert dict(ours.validated_data) == dict(drf.validated_data)


def test_each_serializer_binds_and_changes_fields_of_its_own() -> None:
    first, second = MarkInputSerializer(data=GOOD_MARK), MarkInputSerializer(data={**GOOD_MARK, "label": ""})
    for name in first.fields:
        assert first.fields[name] is not second.fields[name]
        assert first.fields[name].parent is first and second.fields[name].parent is second
    # a change to one request's field (as a view may make) stays in that request
    first.fields["label"].allow_blank = True
    assert first.is_valid(), first.errors
    assert not second.is_valid() and "label" in second.errors
    assert not MarkInputSerializer(data={**GOOD_MARK, "label": ""}).is_valid()


def test_a_serializer_whose_fields_read_context_takes_drfs_copies() -> None:
    class Nested(FieldsCopied, serializers.Serializer):
        inner = serializers.DictField()

    class WithUser(FieldsCopied, serializers.Serializer):
        who = serializers.HiddenField(default=serializers.CurrentUserDefault())

    class WithNested(FieldsCopied, serializers.Serializer):
        part = Nested()

    class Plain(FieldsCopied, serializers.Serializer):
        n = serializers.ListField(child=serializers.IntegerField())

    for cls, plain in ((WithUser, False), (WithNested, False), (Plain, True)):
        a, b = cls(), cls()
        assert a.fields.keys() == b.fields.keys()
        assert cls._fields_plain is plain
        name = next(iter(a.fields))
        assert a.fields[name] is not b.fields[name]
    # DRF's deep copies: a nested serializer's own fields are not shared either
    a, b = WithNested(), WithNested()
    assert a.fields["part"].fields["inner"] is not b.fields["part"].fields["inner"]
    user = object()
    ok = WithUser(data={}, context={"request": type("R", (), {"user": user})()})
    assert ok.is_valid() and ok.validated_data["who"] is user
