"""Input serializers whose fields are copied cheaply for each request instead of rebuilt.

DRF gives every serializer instance its own fields by deep-copying the declared ones, and a field's
deep copy calls its __init__ again with the arguments it was declared with (validators, choices,
messages built anew). The mark POST, the autosave PATCH and the item compile validate their body
through a serializer of 4-9 fields each request: the copy took 72 us of the mark POST's 146 us of
validation timed alone, and 8 % of the web processes' samples (of the thread holding the lock)
under the 8-client unit load on PostgreSQL (bench/README.md, "The health check without a round
trip"). `FieldsCopied` copies each declared field's attributes into a new object of its class
instead, so a request binds and may change its own fields as DRF allows, while the parts set up at
declaration (validator lists, choice maps, a list field's child) are shared, read only.

That is safe only for plain fields: validation reads their settings and the value, never the
serializer's context or state of another request. A nested serializer, a related field (it holds a
queryset) or anything that asks for context (a default or validator with `requires_context`, as
CurrentUserDefault) makes the class take DRF's deep copies, decided once per class.
"""

from __future__ import annotations

import copy
from typing import Any

from rest_framework import fields as drf_fields
from rest_framework import relations, serializers


class FieldsCopied:
    """Mix in before the serializer class: `class S(FieldsCopied, serializers.Serializer)`."""

    _declared_fields: dict[str, drf_fields.Field]

    def get_fields(self) -> dict[str, drf_fields.Field]:
        cls = type(self)
        plain = cls.__dict__.get("_fields_plain")
        if plain is None:  # looked up on the class itself, so a subclass decides for its own fields
            plain = all(_plain(f) for f in self._declared_fields.values())
            cls._fields_plain = plain  # type: ignore[attr-defined]
        if not plain:
            return copy.deepcopy(self._declared_fields)
        return {name: _copied(field) for name, field in self._declared_fields.items()}


def _copied(field: drf_fields.Field) -> drf_fields.Field:
    new = object.__new__(type(field))
    new.__dict__.update(field.__dict__)
    return new


def _plain(field: Any) -> bool:
    if isinstance(field, serializers.BaseSerializer | relations.RelatedField | relations.ManyRelatedField):
        return False
    if getattr(field.default, "requires_context", False):
        return False
    if any(getattr(v, "requires_context", False) for v in field.validators):
        return False
    child = getattr(field, "child", None)
    return child is None or _plain(child)
