"""REST API of compiled items: list, compile, submit."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin, IsAnnotator, IsAuthor
from annotator.compiling import lifecycle, selectors
from annotator.compiling.serializers import ItemOutputSerializer
from annotator.compiling.services import item_compile
from annotator.models import Item


class ItemListApi(APIView):
    class ItemCompileInputSerializer(serializers.Serializer):
        task = serializers.ChoiceField(choices=Item.Task.choices)
        mark_ids = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        seed = serializers.IntegerField(required=False, allow_null=True, min_value=0)

    def get_permissions(self) -> list[Any]:
        if self.request.method == "POST":
            return [IsAuthenticated(), IsAnnotator()]
        return [IsAuthenticated()]

    @extend_schema(responses=ItemOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        if not (IsAdmin | IsAnnotator)().has_permission(request, self):
            self.permission_denied(request, message="reviewers see items through the review queue")
        scene_id = request.query_params.get("scene", "")
        if scene_id and not scene_id.isdigit():
            return Response({"scene": ["a scene id is a number"]}, status=status.HTTP_400_BAD_REQUEST)
        items = selectors.items_for_user(user=request.user, scene_id=int(scene_id) if scene_id else None)
        return Response(ItemOutputSerializer(items, many=True).data)

    @extend_schema(request=ItemCompileInputSerializer, responses=ItemOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.ItemCompileInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = item_compile(user=request.user, **data.validated_data)
        return Response(
            ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item.id)).data,
            status=status.HTTP_201_CREATED,
        )


class ItemDetailApi(APIView):
    @extend_schema(responses=ItemOutputSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        return Response(ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item_id)).data)


class ItemSubmitApi(APIView):
    permission_classes = [IsAuthenticated, IsAnnotator, IsAuthor]

    @extend_schema(request=None, responses=ItemOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        item = selectors.item_get(user=request.user, item_id=item_id)
        self.check_object_permissions(request, item)
        item = lifecycle.item_submit(item=item)
        return Response(ItemOutputSerializer(selectors.item_get(user=request.user, item_id=item.id)).data)
