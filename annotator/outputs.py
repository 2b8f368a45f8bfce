"""Output serializers whose fields are built once per process instead of once per response.

DRF builds a serializer's fields for every instance it makes: a deep copy of each declared field
(re-running its __init__) and, for a ModelSerializer, the model's fields introspected again. The
mark POST answers one mark and the item compile one item, so that building was paid per request:
under the 8-client unit load it was about 5 % of a mark POST's server CPU and more of the compile's
(bench/README.md). `FieldsBuiltOnce` answers through one set of fields kept on the class.

That is safe for output only, and only where the fields do not read the serializer's context or
parent: a plain field's `get_attribute` and `to_representation` read the instance and their own
settings, never state of the response. Method fields (SerializerMethodField) are not shared: their
method runs on the serializer of this response, with its context. Declared fields stay as DRF has
them (`.fields`), for the schema and for input.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone
from rest_framework import ISO_8601, serializers
from rest_framework.fields import Field, SkipField
from rest_framework.relations import PKOnlyObject
from rest_framework.settings import api_settings


class FieldsBuiltOnce:
    """Mix in before the serializer class: `class S(FieldsBuiltOnce, serializers.Serializer)`."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        cls = type(self)
        # Looked up on the class itself, so a subclass builds its own. Two threads building it at
        # once build the same list; the last one stays.
        shared = cls.__dict__.get("_fields_built_once")
        if shared is None:
            template = cls(context={})  # type: ignore[call-arg]
            shared = [_Shared(name, f) for name, f in template.fields.items() if not f.write_only]  # type: ignore[attr-defined]
            cls._fields_built_once = shared  # type: ignore[attr-defined]
        out: dict[str, Any] = {}
        mapping = isinstance(instance, Mapping)
        tz = None  # the current time zone, read once for the row's times (below)
        for each in shared:
            if each.method is not None:
                out[each.name] = getattr(self, each.method)(instance)
                continue
            # As Serializer.to_representation does it, field by field.
            try:
                attribute = each.get(instance, mapping)
            except SkipField:
                continue
            none = (attribute.pk if isinstance(attribute, PKOnlyObject) else attribute) is None
            if none:
                out[each.name] = None
            elif each.iso_time and type(attribute) is datetime and attribute.tzinfo is not None and settings.USE_TZ:
                # DRF's DateTimeField reads the time zone (asgiref's context-local storage) and the
                # settings for every value: with its other checks, 11 % of a scene's marks read
                # under the profiler (bench/README.md). The same text, the zone read once a row.
                tz = timezone.get_current_timezone() if tz is None else tz
                try:
                    out[each.name] = _iso_time(attribute, tz)
                except OverflowError:  # DRF's own error for it
                    out[each.name] = each.field.to_representation(attribute)
            else:
                out[each.name] = each.field.to_representation(attribute)
        return out


class _Shared:
    """One output field, with how its value is read worked out once. A field whose source is one
    attribute reads it with `operator.attrgetter` instead of DRF's `get_attribute`, which for every
    value of every row asks whether the instance is a Mapping (an ABC check; here once a row) and
    whether the value is callable: with the field loop, 13 % of a scene's marks read under the
    profiler (bench/README.md). Whatever the shortcut could answer differently goes to DRF's own:
    a missing attribute (its defaults and SkipField), a related row that does not exist, a value
    that is callable (DRF calls it), a source through several attributes, and every field that
    reads its value its own way (a related field's key alone)."""

    __slots__ = ("field", "iso_time", "method", "name", "read")

    def __init__(self, name: str, field: Any) -> None:
        self.name, self.field = name, field
        self.method: str | None = field.method_name if isinstance(field, serializers.SerializerMethodField) else None
        attrs = getattr(field, "source_attrs", [])
        # Only where the field reads its value as any field does: a related field reads the key
        # column alone (PKOnlyObject), never the related row.
        plain = type(field).get_attribute is Field.get_attribute
        self.read = operator.attrgetter(attrs[0]) if self.method is None and len(attrs) == 1 and plain else None
        # A DateTimeField as DRF's default makes it (ISO 8601 in the current time zone): its aware
        # values are written by _iso_time, the same text; anything else goes through the field.
        self.iso_time = (
            type(field) is serializers.DateTimeField
            and not hasattr(field, "timezone")
            and str(getattr(field, "format", api_settings.DATETIME_FORMAT)).lower() == ISO_8601
        )

    def get(self, instance: Any, mapping: bool) -> Any:
        if self.read is not None and not mapping:
            try:
                value = self.read(instance)
            except (AttributeError, ObjectDoesNotExist):
                pass
            else:
                if not callable(value):
                    return value
        return self.field.get_attribute(instance)


def _iso_time(value: datetime, tz: Any) -> str:
    """DRF's DateTimeField.to_representation of an aware datetime in ISO 8601: moved to the time
    zone, and UTC written as Z."""
    text = value.astimezone(tz).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text
