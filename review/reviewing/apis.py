"""REST API of review: the blind queue, answers, decisions, reasons."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin, IsReviewer
from annotator.models import Item
from review.models import Review
from review.reviewing import selectors
from review.reviewing.reasons import REASONS
from review.reviewing.services import review_decide, review_start


class BlindItemSerializer(serializers.ModelSerializer):
    """An item as a reviewer first sees it: no answer key."""

    uid = serializers.CharField(read_only=True)
    scene_name = serializers.CharField(source="scene.name", read_only=True)
    # Which marks the question is about (shown highlighted in the workspace); not the answer key.
    mark_ids = serializers.SerializerMethodField()

    class Meta:
        model = Item
        fields = ["id", "uid", "scene", "scene_name", "task", "question", "options", "answer_format", "mark_ids"]

    def get_mark_ids(self, obj: Item) -> list[int]:
        return sorted(m.id for m in obj.marks.all())


class ReviewOutputSerializer(serializers.ModelSerializer):
    answer_key = serializers.CharField(source="item.answer", read_only=True)

    class Meta:
        model = Review
        fields = [
            "id",
            "item",
            "reviewer",
            "blind_answer",
            "blind_correct",
            "answer_key",
            "decision",
            "reasons",
            "comment",
            "anchor_mark",
            "created_at",
            "decided_at",
        ]


class ReviewQueueApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    @extend_schema(responses=BlindItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(BlindItemSerializer(selectors.review_queue(reviewer=request.user), many=True).data)


class ReviewItemApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    @extend_schema(responses=BlindItemSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        item = selectors.review_item_get(reviewer=request.user, item_id=item_id)
        body: dict[str, Any] = dict(BlindItemSerializer(item).data)
        review = selectors.review_for(reviewer=request.user, item=item)
        # The key is shown only once this reviewer has answered blind.
        body["review"] = ReviewOutputSerializer(review).data if review else None
        return Response(body)


class ReviewAnswerApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    class ReviewAnswerInputSerializer(serializers.Serializer):
        blind_answer = serializers.CharField(max_length=200)

    @extend_schema(request=ReviewAnswerInputSerializer, responses=ReviewOutputSerializer)
    def post(self, request: Request, item_id: int) -> Response:
        item = selectors.review_item_get(reviewer=request.user, item_id=item_id)
        data = self.ReviewAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        review = review_start(item=item, reviewer=request.user, blind_answer=data.validated_data["blind_answer"])
        return Response(ReviewOutputSerializer(review).data, status=status.HTTP_201_CREATED)


class ReviewDecisionApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    class ReviewDecisionInputSerializer(serializers.Serializer):
        decision = serializers.ChoiceField(choices=[Review.Decision.APPROVE, Review.Decision.REJECT])
        reasons = serializers.ListField(
            child=serializers.ChoiceField(choices=list(REASONS)), required=False, default=list
        )
        comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=4000)
        anchor_mark = serializers.IntegerField(required=False, allow_null=True, default=None)

    @extend_schema(request=ReviewDecisionInputSerializer, responses=ReviewOutputSerializer)
    def post(self, request: Request, review_id: int) -> Response:
        review = Review.objects.filter(id=review_id, reviewer_id=request.user.pk).first()
        if review is None:
            return Response({"detail": "no such review"}, status=status.HTTP_404_NOT_FOUND)
        data = self.ReviewDecisionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        review = review_decide(
            review=review,
            reviewer=request.user,
            decision=v["decision"],
            reasons=v["reasons"],
            comment=v["comment"],
            anchor_mark_id=v["anchor_mark"],
        )
        return Response(ReviewOutputSerializer(review).data)


class ReviewListApi(APIView):
    """Every review of an item, for admins (adjudication, agreement)."""

    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(responses=ReviewOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        qs = Review.objects.select_related("item").order_by("id")
        if request.query_params.get("item"):
            qs = qs.filter(item_id=request.query_params["item"])
        return Response(ReviewOutputSerializer(qs, many=True).data)


class ReasonListApi(APIView):
    @extend_schema(responses=dict[str, str])
    def get(self, request: Request) -> Response:
        return Response(REASONS)
