"""annotator.outputs: serializers that build their fields once per process answer exactly as DRF's
own field-by-field answer does, with each response's context, and a subclass keeps its own fields."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from datetime import timezone as dt_timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone as django_timezone
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from annotator.compiling.serializers import ItemOutputSerializer, ItemRowSerializer
from annotator.marking.serializers import MarkOutputSerializer
from annotator.models import Item, ModelView
from annotator.outputs import FieldsBuiltOnce
from tests.factories import ItemFactory, MarkFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _as_drf(serializer_class: type[serializers.Serializer], instance: Any) -> dict[str, Any]:
    """DRF's own answer: Serializer.to_representation, through fields built for this one answer."""
    return dict(serializers.Serializer.to_representation(serializer_class(instance), instance))


def test_a_mark_is_answered_as_drf_answers_it_with_each_answers_context(annotator, other_annotator) -> None:
    # given marks with and without optional values (end time, client key, a copy's original)
    scene = SceneFactory(annotators=[annotator])
    plain = MarkFactory(scene=scene, author=annotator, time_end=None, facts={"visible": True})
    keyed = MarkFactory(scene=scene, author=annotator, time_end=1.5, client_key=uuid.uuid4(), copied_from=plain)
    for mark in (plain, keyed):
        # then the answer is DRF's, key for key and in the same order
        fast = MarkOutputSerializer(mark).data
        assert list(fast.items()) == list(_as_drf(MarkOutputSerializer, mark).items())
        assert fast["client_key"] == (str(mark.client_key) if mark.client_key else None)
    # and facts follow the viewer of each answer (the fields are shared, the context is not)
    assert "facts" in MarkOutputSerializer(plain, context={"viewer": annotator}).data
    assert "facts" not in MarkOutputSerializer(plain, context={"viewer": other_annotator}).data
    listed = MarkOutputSerializer([plain, keyed], many=True, context={"viewer": other_annotator}).data
    assert [m["id"] for m in listed] == [plain.id, keyed.id] and all("facts" not in m for m in listed)


def test_an_item_is_answered_as_drf_answers_it(annotator) -> None:
    # given an item with marks, a model view and a replacement
    scene = SceneFactory(annotators=[annotator])
    marks = [MarkFactory(scene=scene, author=annotator) for _ in range(2)]
    newer = ItemFactory(scene=scene, author=annotator, marks=marks)
    item = ItemFactory(scene=scene, author=annotator, marks=marks, replaced_by=newer, stale=True)
    ModelView.objects.create(item=item)
    item = Item.objects.select_related("model_view").get(id=item.id)
    # then the item's answer and its row's answer are DRF's own
    for serializer_class in (ItemOutputSerializer, ItemRowSerializer):
        fast = serializer_class(item).data
        assert list(fast.items()) == list(_as_drf(serializer_class, item).items())
    # and the row keeps its own fields and methods (its mark ids in id order), not the item's
    assert ItemRowSerializer(item).data["mark_ids"] == sorted(m.id for m in marks)
    assert ItemRowSerializer.__dict__["_fields_built_once"] is not ItemOutputSerializer.__dict__["_fields_built_once"]


class _Odd(FieldsBuiltOnce, serializers.Serializer):
    """Fields whose values the one-attribute shortcut must leave to DRF."""

    plain = serializers.IntegerField()
    called = serializers.CharField(source="shout")  # a method: DRF calls it
    absent_null = serializers.IntegerField(allow_null=True)  # missing: None
    absent_default = serializers.CharField(default="dflt")  # missing: the default
    absent_optional = serializers.IntegerField(required=False)  # missing: left out (SkipField)
    through = serializers.CharField(source="inner.name")  # several attributes
    related = serializers.IntegerField(source="ghost", allow_null=True)  # a related row that is not there
    whole = serializers.ReadOnlyField(source="*")  # the instance itself


class _Thing:
    plain = 7

    class inner:  # noqa: N801 - an attribute holding an object, as a related row would
        name = "in"

    def shout(self) -> str:
        return "HEY"

    @property
    def ghost(self) -> Any:
        raise Item.DoesNotExist  # as a missing related object raises


@pytest.mark.parametrize("instance", [_Thing(), {"plain": 3, "shout": "hi", "inner": {"name": "n"}, "ghost": 5}])
def test_the_shortcut_leaves_to_drf_what_it_could_answer_differently(instance: Any) -> None:
    fast = dict(_Odd(instance).data)
    assert fast == _as_drf(_Odd, instance)
    assert list(fast) == list(_as_drf(_Odd, instance))
    if isinstance(instance, _Thing):
        assert fast["called"] == "HEY" and fast["absent_null"] is None and fast["related"] is None
        assert fast["absent_default"] == "dflt" and "absent_optional" not in fast and fast["through"] == "in"


class _Times(FieldsBuiltOnce, serializers.Serializer):
    """Times as DRF writes them by default (the shortcut's) and otherwise (left to DRF)."""

    at = serializers.DateTimeField()
    also = serializers.DateTimeField()
    formatted = serializers.DateTimeField(format="%Y-%m-%d %H:%M")
    zoned = serializers.DateTimeField(default_timezone=ZoneInfo("Asia/Kolkata"))


TIMES = [
    datetime(2026, 11, 28, 2, 7, 10, 123456, tzinfo=UTC),  # UTC: written with Z
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/Berlin")),  # another zone, a DST edge
    datetime(2026, 6, 1, 12, 0, tzinfo=dt_timezone(timedelta(hours=5, minutes=30))),
    datetime(2026, 6, 1, 12, 0),  # naive: DRF makes it aware
    datetime(1, 1, 1, 0, 0, tzinfo=UTC),  # the first representable moment
]


@pytest.mark.parametrize("zone", ["UTC", "America/Sao_Paulo", "Pacific/Chatham"])
def test_times_are_written_as_drf_writes_them_in_the_current_zone(zone: str) -> None:
    with django_timezone.override(ZoneInfo(zone)):
        for value in TIMES:
            row = {"at": value, "also": value, "formatted": value, "zoned": value}
            try:
                expected: Any = _as_drf(_Times, row)
            except ValidationError as refused:  # a time the zone cannot hold: DRF's error, both ways
                with pytest.raises(ValidationError) as ours:
                    _ = _Times(row).data
                assert ours.value.detail == refused.detail
                continue
            assert dict(_Times(row).data) == expected, (zone, value)
    # a time given as text stays the text (DRF's rule), and None is null
    assert dict(_Times({"at": "then", "also": None, "formatted": None, "zoned": None}).data)["at"] == "then"
    assert dict(_Times({"at": None, "also": None, "formatted": None, "zoned": None}).data)["at"] is None


def test_the_review_steps_are_answered_as_drf_answers_them(annotator) -> None:
    from django.utils import timezone as now_zone

    from review.models import Review
    from review.reviewing.serializers import (
        AdminReviewSerializer,
        AnsweredItemSerializer,
        BlindItemSerializer,
        ReviewOutputSerializer,
    )
    from tests.factories import ReviewerFactory, ReviewFactory

    # given an item in review with marks, a pending review and a decided one with reasons and anchors
    scene = SceneFactory(annotators=[annotator])
    marks = [MarkFactory(scene=scene, author=annotator) for _ in range(2)]
    item = ItemFactory(scene=scene, author=annotator, marks=marks, state=Item.State.IN_REVIEW)
    pending = ReviewFactory(item=item, reviewer=ReviewerFactory())
    decided = ReviewFactory(
        item=item, reviewer=ReviewerFactory(), decision=Review.Decision.REJECT, comment="the key is off",
        reasons=["wrong_answer", "ambiguous"],
        anchor_mark=marks[0], anchor_time_s=3.5, decision_seconds=12.0, decided_at=now_zone.now(),
    )  # fmt: skip
    # then each shape answers as DRF's own field-by-field answer, key for key and in order
    for serializer_class, instance in [
        (BlindItemSerializer, item),
        (AnsweredItemSerializer, item),
        (ReviewOutputSerializer, pending),
        (ReviewOutputSerializer, decided),
        (AdminReviewSerializer, decided),
    ]:
        fast = serializer_class(instance).data
        assert list(fast.items()) == list(_as_drf(serializer_class, instance).items()), serializer_class
    # and the blind shape still names nothing of the key
    assert not {"answer", "mark_ids", "provenance", "state"} & set(BlindItemSerializer(item).data)


def test_times_follow_use_tz_as_drf_does(settings) -> None:  # type: ignore[no-untyped-def]
    row = {"at": TIMES[1], "also": TIMES[0], "formatted": TIMES[0], "zoned": TIMES[2]}
    _ = _Times(row).data  # the fields are built with USE_TZ on
    settings.USE_TZ = False
    assert dict(_Times(row).data) == _as_drf(_Times, row)
    assert dict(_Times(row).data)["at"] == "2026-03-29T00:30:00"  # naive UTC, as DRF writes it then
