"""Output shape of compiled items, with their model view and why a stale one is stale."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils.http import RFC3986_SUBDELIMS
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotator.models import Item, ModelView
from annotator.outputs import FieldsBuiltOnce

# Stand-ins reversed once, then replaced by each file's own: an item id no table reaches, and a
# name that quoting leaves as it is. Quoted as django.urls.resolvers quotes what it puts in a path.
_ITEM, _NAME, _SAFE = 987_654_321_987, "skymark-file-name", RFC3986_SUBDELIMS + "/~:@"


@functools.cache
def _file_url_pattern(script_prefix: str) -> str:
    """The model-view file URL with the stand-ins in it, under this script prefix (an argument so
    that each prefix has its own: reverse() reads it from the request)."""
    return reverse("model-view-file", args=[_ITEM, _NAME])


def _file_url(item_id: int, name: str) -> str:
    """What `reverse("model-view-file", args=[item_id, name])` answers, quoting the name as it does.
    A list answers up to three URLs an item, and reversing each was 10 % of the items list's samples
    under the 8-client read load (bench/README.md); the pattern is reversed once per script prefix
    (the prefix is the request's, as reverse() reads it)."""
    if item_id < 0 or not name or "/" in name:
        return reverse("model-view-file", args=[item_id, name])  # refused there, as it should be
    pattern = _file_url_pattern(get_script_prefix())
    return pattern.replace(str(_ITEM), str(int(item_id)), 1).replace(_NAME, quote(name, safe=_SAFE), 1)


class ModelViewOutputSerializer(serializers.ModelSerializer):
    """The files a model is given for the item, once rendered (urls are null before)."""

    image_url = serializers.SerializerMethodField()
    video_url = serializers.SerializerMethodField()
    segment_s = serializers.SerializerMethodField()
    options = serializers.SerializerMethodField()

    class Meta:
        model = ModelView
        fields = ["state", "progress", "error", "image_url", "video_url", "segment_s", "video_note", "options"]

    def _done(self, view: ModelView) -> bool:
        return view.state == ModelView.State.SUCCEEDED

    def get_image_url(self, view: ModelView) -> str | None:
        return _file_url(view.item_id, "view.jpg") if self._done(view) else None

    def get_video_url(self, view: ModelView) -> str | None:
        return _file_url(view.item_id, "video.mp4") if self._done(view) else None

    def get_segment_s(self, view: ModelView) -> list[float] | None:
        if view.segment_start_s is None or view.segment_end_s is None:
            return None
        return [view.segment_start_s, view.segment_end_s]

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_options(self, view: ModelView) -> list[dict[str, Any]]:
        if not self._done(view):
            return []
        return [{"option": o["option"], "image_url": _file_url(view.item_id, f"option-{o['option']}.jpg")}
                for o in view.option_images]  # fmt: skip


def stale_reason(item: Item, snapshots: list[dict[str, Any]] | None = None) -> str:
    """Which marks changed or went since the item was compiled ("" when none did), from the
    prefetched marks: no query per item. `snapshots`: the provenance's marks, when the caller
    read them without the rest of the provenance."""
    if not item.stale:
        return ""
    current = {m.id: m.version for m in item.marks.all()}
    parts = []
    for snap in item.provenance.get("marks", []) if snapshots is None else snapshots:
        version = current.get(snap["id"])
        if version is None:
            parts.append(f"mark #{snap['id']} ({snap['label']}) was deleted")
        elif version != snap["version"]:
            parts.append(f"mark #{snap['id']} ({snap['label']}) changed (version {snap['version']} → {version})")
    return "; ".join(parts) or "a mark it was built from changed"


class ItemOutputSerializer(FieldsBuiltOnce, serializers.ModelSerializer):
    # Fields introspected from the model once per process, not per answer (annotator.outputs).
    uid = serializers.CharField(read_only=True)
    mark_ids = serializers.SerializerMethodField()
    approvals = serializers.IntegerField(read_only=True, default=0)
    rejections = serializers.IntegerField(read_only=True, default=0)
    stale_reason = serializers.SerializerMethodField()
    phrasing = serializers.SerializerMethodField()
    # A nested field, so that a list builds the model view's fields once: building a
    # ModelSerializer per item (its fields introspected from the model each time) was 39 % of the
    # items list's server time under the profiler (bench/README.md).
    model_view = ModelViewOutputSerializer(read_only=True, allow_null=True)
    satellite_image = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = [
            "id",
            "uid",
            "scene",
            "task",
            "question",
            "options",
            "answer",
            "answer_format",
            "template",
            "seed",
            "mark_ids",
            "satellite_image",
            "state",
            "revision",
            "stale",
            "stale_reason",
            "replaced_by",
            "phrasing",
            "active_seconds",
            "approvals",
            "rejections",
            "model_view",
            "created_at",
        ]

    def get_mark_ids(self, obj: Item) -> list[int]:
        """In the order the item was compiled from (the parts it plays follow that order)."""
        ordered = [m["id"] for m in obj.provenance.get("marks", [])]
        current = {m.id for m in obj.marks.all()}
        return [i for i in ordered if i in current] or sorted(current)

    def get_stale_reason(self, obj: Item) -> str:
        return stale_reason(obj)

    def _snapshots(self, obj: Item) -> list[dict[str, Any]]:
        return list(obj.provenance.get("marks", []))

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_satellite_image(self, obj: Item) -> int | None:
        """The satellite image its marks are drawn on (compiling keeps an item's marks on one), from
        the prefetched marks, else from the snapshot of marks deleted since."""
        ids = {m.satellite_image_id for m in obj.marks.all()}
        if ids:
            return min(ids)
        return next((s["satellite_image"] for s in self._snapshots(obj) if s.get("satellite_image")), None)

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_phrasing(self, obj: Item) -> dict[str, Any] | None:
        p = obj.provenance
        if "phrasing_text" not in p:
            return None
        return {"id": p.get("phrasing_id"), "index": p.get("phrasing"), "text": p["phrasing_text"]}


# Shapes of the answers that are not an item (for the schema; the views build them as dicts).
class TaskCheckOutputSerializer(serializers.Serializer):
    task = serializers.ChoiceField(choices=Item.Task.choices)
    dimension = serializers.CharField()
    answer_format = serializers.CharField()
    ok = serializers.BooleanField()
    missing = serializers.ListField(child=serializers.DictField(), help_text="{field, message} to add or fix")
    needs = serializers.CharField()
    derives = serializers.JSONField()

    def get_fields(self) -> dict[str, serializers.Field]:
        # Added here: class attributes named `label` and `fields` would hide the serializer's own.
        declared = super().get_fields()
        declared["label"] = serializers.CharField()
        declared["fields"] = serializers.ListField(
            child=serializers.DictField(), help_text="the facts the template asks for"
        )
        return declared


class ItemCheckOutputSerializer(serializers.Serializer):
    tasks = TaskCheckOutputSerializer(many=True)


class ItemPreviewOutputSerializer(serializers.Serializer):
    task = serializers.ChoiceField(choices=Item.Task.choices)
    question = serializers.CharField()
    options = serializers.JSONField()
    answer = serializers.JSONField()
    answer_format = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True)
    template = serializers.CharField()
    phrasing = serializers.DictField()
    model_view = serializers.DictField(help_text="image and option images as data URLs, segment_s")


class TaskTallyOutputSerializer(serializers.Serializer):
    task = serializers.ChoiceField(choices=Item.Task.choices)
    created = serializers.IntegerField()
    existing = serializers.IntegerField()
    refused = serializers.IntegerField()
    refusals = serializers.ListField(child=serializers.DictField(), help_text="{marks, field, reason} per refusal")


class CompileAllOutputSerializer(serializers.Serializer):
    items = ItemOutputSerializer(many=True)
    tasks = TaskTallyOutputSerializer(many=True)
    truncated = serializers.BooleanField()


class ItemRowSerializer(ItemOutputSerializer):
    """An item as the list shows it, from `item_rows_for_user` (no provenance loaded): the same
    fields as the item's own page, with `mark_ids` in id order rather than the compile order
    (the item's page has that order: the parts the marks play follow it)."""

    def get_mark_ids(self, obj: Item) -> list[int]:
        return sorted(m.id for m in obj.marks.all())

    def get_stale_reason(self, obj: Item) -> str:
        return stale_reason(obj, snapshots=getattr(obj, "stale_snapshots", None) or [])

    def _snapshots(self, obj: Item) -> list[dict[str, Any]]:
        return list(getattr(obj, "stale_snapshots", None) or [])  # the provenance is not loaded

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_phrasing(self, obj: Item) -> dict[str, Any] | None:
        text = getattr(obj, "phrasing_text", None)
        if text is None:
            return None
        return {"id": obj.phrasing_id, "index": obj.phrasing_index, "text": text}  # type: ignore[attr-defined]


class ItemBulkResultSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the item named in the request")
    ok = serializers.BooleanField()
    error = serializers.CharField(help_text="why it was refused, in a sentence (empty when ok)")
    item = ItemOutputSerializer(
        allow_null=True, help_text="the item as it is now (a recompiled first draft: its new draft)"
    )


class ItemBulkOutputSerializer(serializers.Serializer):
    action = serializers.CharField()
    done = serializers.IntegerField()
    refused = serializers.IntegerField()
    results = ItemBulkResultSerializer(many=True)
