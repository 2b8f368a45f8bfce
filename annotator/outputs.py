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

from typing import Any

from rest_framework import serializers
from rest_framework.fields import SkipField
from rest_framework.relations import PKOnlyObject


class FieldsBuiltOnce:
    """Mix in before the serializer class: `class S(FieldsBuiltOnce, serializers.Serializer)`."""

    def to_representation(self, instance: Any) -> dict[str, Any]:
        cls = type(self)
        # Looked up on the class itself, so a subclass builds its own. Two threads building it at
        # once build the same list; the last one stays.
        shared = cls.__dict__.get("_fields_built_once")
        if shared is None:
            template = cls(context={})  # type: ignore[call-arg]
            shared = [(name, f) for name, f in template.fields.items() if not f.write_only]  # type: ignore[attr-defined]
            cls._fields_built_once = shared  # type: ignore[attr-defined]
        out: dict[str, Any] = {}
        for name, field in shared:
            if isinstance(field, serializers.SerializerMethodField):
                out[name] = getattr(self, field.method_name)(instance)
                continue
            # As Serializer.to_representation does it, field by field.
            try:
                attribute = field.get_attribute(instance)
            except SkipField:
                continue
            none = (attribute.pk if isinstance(attribute, PKOnlyObject) else attribute) is None
            out[name] = None if none else field.to_representation(attribute)
        return out
