"""REST API of compiled items: list, compile (one, or all a scene's marks allow), check which tasks
the selected marks can make, preview, submit, compile again, revise or withdraw a rejected item,
and report active time."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin, IsAnnotator, IsAssignedToScene, IsAuthor
from annotator.access.scopes import scene_get_visible
from annotator.compiling import lifecycle, selectors
from annotator.compiling.batch import items_compile_all
from annotator.compiling.bulk import ACTIONS, MAX_BULK_ITEMS, items_bulk_act
from annotator.compiling.checks import item_preview, tasks_check
from annotator.compiling.serializers import (
    CompileAllOutputSerializer,
    ItemBulkOutputSerializer,
    ItemCheckOutputSerializer,
    ItemOutputSerializer,
    ItemPreviewOutputSerializer,
    ItemRowSerializer,
)
from annotator.compiling.services import (
    MAX_EFFORT_REPORT_S,
    item_compile,
    item_effort_add,
    item_recompile,
    item_revise,
    item_withdraw,
)
from annotator.compiling.tasks import views_render_in_process
from annotator.inputs import FieldsCopied
from annotator.models import Item, ModelView
from annotator.pagination import Pages, paginate
from annotator.parsers import INT64_MAX, query_id

# Form and multipart bodies are not read by the bounded JSON parser: the id range is checked here.
MarkIds = serializers.ListField(
    child=serializers.IntegerField(min_value=1, max_value=INT64_MAX), min_length=1, max_length=100
)


def _seconds(required: bool = False) -> serializers.FloatField:
    """Active time the workspace measured since its last report (see static/js/workspace/effort.js)."""
    if required:
        return serializers.FloatField(min_value=0, max_value=MAX_EFFORT_REPORT_S)
    return serializers.FloatField(required=False, default=0.0, min_value=0, max_value=MAX_EFFORT_REPORT_S)


def _item(request: Request, item_id: int) -> dict[str, Any]:
    return dict(ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item_id)).data)


class ItemListApi(APIView):
    class ItemCompileInputSerializer(FieldsCopied, serializers.Serializer):
        task = serializers.ChoiceField(choices=Item.Task.choices)
        mark_ids = MarkIds
        seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=INT64_MAX)
        active_seconds = _seconds()

    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [IsAuthenticated(), IsAnnotator()]
        return [IsAuthenticated()]

    pagination_class = Pages

    @extend_schema(
        parameters=[OpenApiParameter("scene", int), OpenApiParameter("open", str, enum=["1"])],
        responses=ItemRowSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        """`?scene=ID` narrows to a scene; `?open=1` to the drafts and rejected items not replaced yet.
        Pages of compact rows: an item's provenance is on its own page (GET /api/items/ID/)."""
        if not (IsAdmin | IsAnnotator)().has_permission(request, self):
            self.permission_denied(request, message="reviewers see items through the review queue")
        scene_id = request.query_params.get("scene", "")
        if scene_id and query_id(scene_id) is None:
            return Response({"scene": ["a scene id is a number"]}, status=status.HTTP_400_BAD_REQUEST)
        items = selectors.item_rows(
            user=request.user,
            scene_id=query_id(scene_id) if scene_id else None,
            open_only=request.query_params.get("open") == "1",
        )
        return paginate(request, items, ItemRowSerializer)

    @extend_schema(request=ItemCompileInputSerializer, responses={201: ItemOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.ItemCompileInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_compile(user=request.user, **data.validated_data)
        # A new draft has no reviews, and its marks and model view are at hand: it is answered from
        # the object the service made. Read again with the review tallies (item_get), it was a third
        # of the compile's server time under the 8-client unit load (bench/README.md).
        # Its marks are those the service linked (lifecycle keeps them on the item) and its model view
        # the pending row it made: a worker renders it later and the panel polls until it is done.
        # An eager queue renders it before this line, so then the stored row is read again.
        if views_render_in_process():
            item.model_view = ModelView.objects.filter(item_id=item.id).first()  # type: ignore[assignment]
        return Response(ItemOutputSerializer(item).data, status=status.HTTP_201_CREATED)


class ItemCheckApi(APIView):
    """Which tasks the marks (in this order) can make, and for the others what is missing."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    class ItemCheckInputSerializer(serializers.Serializer):
        mark_ids = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=INT64_MAX), max_length=100
        )

    @extend_schema(request=ItemCheckInputSerializer, responses=ItemCheckOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.ItemCheckInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response({"tasks": tasks_check(user=request.user, **data.validated_data)})


class ItemPreviewApi(APIView):
    """The item these marks would make, with its model view, without saving anything."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(request=ItemListApi.ItemCompileInputSerializer, responses=ItemPreviewOutputSerializer)
    def post(self, request: Request) -> Response:
        data = ItemListApi.ItemCompileInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = {k: v for k, v in data.validated_data.items() if k != "active_seconds"}
        return Response(item_preview(user=request.user, **fields))


class SceneCompileAllApi(APIView):
    """Compile every new item the user's marks on the scene allow, keys balanced per task."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    class CompileAllInputSerializer(serializers.Serializer):
        seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=INT64_MAX)
        active_seconds = _seconds()

    @extend_schema(request=CompileAllInputSerializer, responses={201: CompileAllOutputSerializer})
    def post(self, request: Request, scene_id: int) -> Response:
        scene_get_visible(user=request.user, scene_id=scene_id)
        data = self.CompileAllInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = items_compile_all(user=request.user, scene_id=scene_id, **data.validated_data)
        items = selectors.items_for_user(user=request.user).filter(id__in=[it.id for it in result.items])
        tally = [{"task": task, **vars(t)} for task, t in sorted(result.tally.items())]
        body = {"items": ItemOutputSerializer(items, many=True).data, "tasks": tally, "truncated": result.truncated}
        return Response(body, status=status.HTTP_201_CREATED)


class ItemDetailApi(APIView):
    @extend_schema(responses=ItemOutputSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        return Response(_item(request, item_id))


class EffortInputSerializer(serializers.Serializer):
    active_seconds = _seconds()


class ItemSubmitApi(APIView):
    permission_classes = [IsAuthenticated, IsAnnotator, IsAuthor, IsAssignedToScene]

    @extend_schema(request=EffortInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        data = EffortInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = selectors.item_get(user=request.user, item_id=item_id)
        self.check_object_permissions(request, item)
        item = lifecycle.item_submit(item=item, actor=request.user)
        if data.validated_data["active_seconds"]:
            item_effort_add(user=request.user, item_id=item.id, seconds=data.validated_data["active_seconds"])
        return Response(_item(request, item.id))


class ItemRecompileApi(APIView):
    """A fresh draft of the same task from the item's marks, in the same order, as they are now."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    @extend_schema(request=EffortInputSerializer, responses={201: ItemOutputSerializer})
    def post(self, request: Request, item_id: int) -> Response:
        data = EffortInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_recompile(user=request.user, item_id=item_id, **data.validated_data)
        return Response(_item(request, item.id), status=status.HTTP_201_CREATED)


class ItemEffortApi(APIView):
    """Add active time (seconds the workspace was focused and in use) to one of the user's items."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    class ItemEffortInputSerializer(serializers.Serializer):
        seconds = _seconds(required=True)

    @extend_schema(request=ItemEffortInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        selectors.item_get(user=request.user, item_id=item_id)  # 404 for others' items before their input
        data = self.ItemEffortInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item_effort_add(user=request.user, item_id=item_id, **data.validated_data)
        return Response(_item(request, item_id))


class ItemReviseApi(APIView):
    """The author's next revision of a rejected item, compiled again from its marks (a draft)."""

    permission_classes = [IsAuthenticated, IsAnnotator, IsAuthor, IsAssignedToScene]

    class ItemReviseInputSerializer(serializers.Serializer):
        note = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)
        seed = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=INT64_MAX, default=None)
        active_seconds = _seconds()

    @extend_schema(request=ItemReviseInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        item = selectors.item_get(user=request.user, item_id=item_id)
        self.check_object_permissions(request, item)
        data = self.ItemReviseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_revise(user=request.user, item_id=item.id, **data.validated_data)
        return Response(_item(request, item.id))


class ItemWithdrawApi(APIView):
    """The author gives up a rejected item: withdrawn, it never returns to a queue."""

    permission_classes = [IsAuthenticated, IsAnnotator, IsAuthor, IsAssignedToScene]

    class ItemWithdrawInputSerializer(serializers.Serializer):
        reason = serializers.CharField(required=False, allow_blank=True, default="", max_length=1000)

    @extend_schema(request=ItemWithdrawInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        item = selectors.item_get(user=request.user, item_id=item_id)
        self.check_object_permissions(request, item)
        data = self.ItemWithdrawInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_withdraw(user=request.user, item_id=item.id, **data.validated_data)
        return Response(_item(request, item.id))


class ItemBulkApi(APIView):
    """Submit, compile again or withdraw several of the annotator's items in one request: each item
    moves on its own through the item lifecycle, all or nothing, and the answer says per item
    whether it did (with the item as it is now) or why not."""

    permission_classes = [IsAuthenticated, IsAnnotator]

    class ItemBulkInputSerializer(serializers.Serializer):
        action = serializers.ChoiceField(choices=ACTIONS)
        ids = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=INT64_MAX),
            min_length=1,
            max_length=MAX_BULK_ITEMS,
            help_text=f"the items, at most {MAX_BULK_ITEMS}, each once",
        )

        def validate_ids(self, ids: list[int]) -> list[int]:
            if len(set(ids)) != len(ids):
                raise serializers.ValidationError("name each item once")
            return ids

    @extend_schema(request=ItemBulkInputSerializer, responses=ItemBulkOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.ItemBulkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        action, ids = data.validated_data["action"], data.validated_data["ids"]
        results = items_bulk_act(user=request.user, action=action, item_ids=ids)
        done = [r.item_id for r in results if r.item_id is not None]
        items = {it.id: it for it in selectors.items_for_user(user=request.user).filter(id__in=done)}
        rows = [
            {
                "id": r.requested_id,
                "ok": r.ok,
                "error": r.error,
                "item": ItemOutputSerializer(items[r.item_id]).data if r.item_id in items else None,
            }
            for r in results
        ]
        body = {"action": action, "done": sum(r.ok for r in results), "refused": sum(not r.ok for r in results)}
        return Response({**body, "results": rows})
