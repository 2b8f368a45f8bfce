"""REST API of review: the reviewer's queue, blind answers, decisions, adjudication, reasons, gold
items, assignments and the audit trail. Each view: validate -> service or selector -> serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdjudicator, IsAdmin, IsReviewer
from annotator.access.scopes import blind_item_ids, in_member_projects, item_in_projects_get, item_record_get
from annotator.pagination import Pages, paginate, paginate_answered
from annotator.parsers import INT64_MAX
from review.audit.selectors import events_for_item
from review.models import Review, ReviewAssignment
from review.reviewing import selectors
from review.reviewing.adjudication import item_adjudicate
from review.reviewing.assignment import assignment_add, assignment_remove
from review.reviewing.gold import gold_mark, gold_unmark
from review.reviewing.reasons import reasons_active
from review.reviewing.serializers import (
    AdjudicationItemSerializer,
    AdjudicationOutputSerializer,
    AdminReviewSerializer,
    AnsweredItemSerializer,
    BlindItemSerializer,
    ItemEventSerializer,
    ReasonSerializer,
    ReviewOutputSerializer,
)
from review.reviewing.services import review_decide, review_start

# approve or reject (a decision that is not pending), named as in the schema's VerdictEnum
VERDICTS = [(Review.Decision.APPROVE.value, "Approve"), (Review.Decision.REJECT.value, "Reject")]


def _seconds_field() -> serializers.FloatField:
    """An optional duration or video time in seconds."""
    return serializers.FloatField(required=False, allow_null=True, default=None, min_value=0)


class ReviewQueueApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    pagination_class = Pages

    @extend_schema(responses=BlindItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        # The rows come in BlindItemSerializer's shape (annotator.hotpath.queue), which the schema names.
        return paginate_answered(request, selectors.review_queue_rows(reviewer=request.user))


class ReviewItemApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    @extend_schema(responses=AnsweredItemSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        """Before this reviewer's blind answer: the model view's question and options only; after
        it, the item's mark ids and their review with the key too."""
        item, review = selectors.review_step_get(reviewer=request.user, item_id=item_id)
        shape = AnsweredItemSerializer if review else BlindItemSerializer
        body: dict[str, Any] = dict(shape(item).data)
        body["review"] = ReviewOutputSerializer(review).data if review else None
        return Response(body)


class ReviewAnswerApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    class ReviewAnswerInputSerializer(serializers.Serializer):
        blind_answer = serializers.CharField(max_length=200)
        answer_seconds = _seconds_field()

    @extend_schema(request=ReviewAnswerInputSerializer, responses={201: ReviewOutputSerializer})
    def post(self, request: Request, item_id: int) -> Response:
        data = self.ReviewAnswerInputSerializer(data=request.data)
        if not data.is_valid():
            # An item not in this reviewer's queue is not found, whatever the body: scope before
            # field errors. Read here only for a body that fails; a valid one is found as the
            # service locks it.
            selectors.review_item_get(reviewer=request.user, item_id=item_id)
            data.is_valid(raise_exception=True)
        # By id: the service finds it as the queue does, in the read that locks it (404 otherwise).
        review = review_start(item=item_id, reviewer=request.user, **data.validated_data)
        return Response(ReviewOutputSerializer(review).data, status=status.HTTP_201_CREATED)


class VerdictInputSerializer(serializers.Serializer):
    """What reviewers and adjudicators both send: the decision, reasons and anchors."""

    decision = serializers.ChoiceField(choices=VERDICTS)
    # Codes are checked against the taxonomy (admins edit it) by the service.
    reasons = serializers.ListField(child=serializers.CharField(max_length=40), required=False, default=list)
    anchor_mark = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=INT64_MAX
    )
    anchor_time_s = _seconds_field()


class DecisionInputSerializer(VerdictInputSerializer):
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=4000)


class ReviewDecisionApi(APIView):
    permission_classes = [IsAuthenticated, IsReviewer]

    class ReviewDecisionInputSerializer(DecisionInputSerializer):
        decision_seconds = _seconds_field()

    @extend_schema(request=ReviewDecisionInputSerializer, responses=ReviewOutputSerializer)
    def post(self, request: Request, review_id: int) -> Response:
        data = self.ReviewDecisionInputSerializer(data=request.data)
        if not data.is_valid():
            # Another's review is not found, whatever the body: scope before field errors. Read
            # here only for a body that fails; a valid one is found as the service locks it.
            get_object_or_404(selectors.reviews_of_reviewer(reviewer=request.user), id=review_id)
            data.is_valid(raise_exception=True)
        v = data.validated_data
        # By id: the service reads it through the reviewer's own reviews as it locks it (404 otherwise).
        review = review_decide(
            review=review_id,
            reviewer=request.user,
            decision=v["decision"],
            reasons=v["reasons"],
            comment=v["comment"],
            anchor_mark_id=v["anchor_mark"],
            anchor_time_s=v["anchor_time_s"],
            decision_seconds=v["decision_seconds"],
        )
        return Response(ReviewOutputSerializer(review).data)


class ReviewListApi(APIView):
    """Every review (gold checks included), for admins: ?item=, ?reviewer=, ?gold=0|1."""

    permission_classes = [IsAuthenticated, IsAdmin]
    pagination_class = Pages

    class ReviewFilterSerializer(serializers.Serializer):
        item = serializers.IntegerField(required=False, min_value=1, max_value=INT64_MAX)
        reviewer = serializers.IntegerField(required=False, min_value=1, max_value=INT64_MAX)
        gold = serializers.BooleanField(required=False, allow_null=True, default=None)

    @extend_schema(parameters=[ReviewFilterSerializer], responses=AdminReviewSerializer(many=True))
    def get(self, request: Request) -> Response:
        query = self.ReviewFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        f = query.validated_data
        qs = Review.objects.select_related("item", "reviewer").order_by("id")
        qs = in_member_projects(user=request.user, qs=qs, path="item__scene__project")
        if "item" in f:
            qs = qs.filter(item_id=f["item"])
        if "reviewer" in f:
            qs = qs.filter(reviewer_id=f["reviewer"])
        if f.get("gold") is not None:
            qs = qs.filter(gold=f["gold"])
        blind = blind_item_ids(user=request.user)  # an admin reviewing an item sees no review of it first
        if blind is not None:
            qs = qs.exclude(item_id__in=blind)
        return paginate(request, qs, AdminReviewSerializer)


class ReasonListApi(APIView):
    permission_classes = [IsAuthenticated]

    pagination_class = Pages

    @extend_schema(responses=ReasonSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, reasons_active(), ReasonSerializer)


class AdjudicationQueueApi(APIView):
    """Items in adjudication this user may decide, with every review of their round."""

    permission_classes = [IsAuthenticated, IsAdjudicator | IsAdmin]
    pagination_class = Pages

    @extend_schema(responses=AdjudicationItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        items = selectors.adjudication_queue(user=request.user).prefetch_related(
            Prefetch("reviews", queryset=Review.objects.select_related("reviewer").order_by("id"))
        )
        return paginate(request, items, AdjudicationItemSerializer)


class AdjudicationItemApi(APIView):
    """GET: an item in adjudication with the key and its round's reviews (the workspace reads it
    to highlight the item's marks); POST: the final decision."""

    permission_classes = [IsAuthenticated, IsAdjudicator | IsAdmin]

    @extend_schema(responses=AdjudicationItemSerializer)
    def get(self, request: Request, item_id: int) -> Response:
        item = selectors.adjudication_item_get(user=request.user, item_id=item_id)
        body: dict[str, Any] = dict(AdjudicationItemSerializer(item).data)
        body["mark_ids"] = sorted(m.id for m in item.marks.all())
        return Response(body)

    class AdjudicationInputSerializer(VerdictInputSerializer):
        # the adjudicator's words: why this decision (the service requires them)
        reason = serializers.CharField(max_length=4000, allow_blank=True)

    @extend_schema(request=AdjudicationInputSerializer, responses={201: AdjudicationOutputSerializer})
    def post(self, request: Request, item_id: int) -> Response:
        item = selectors.adjudication_item_get(user=request.user, item_id=item_id)
        data = self.AdjudicationInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        row = item_adjudicate(
            item=item,
            adjudicator=request.user,
            decision=v["decision"],
            reason=v["reason"],
            reasons=v["reasons"],
            anchor_mark_id=v["anchor_mark"],
            anchor_time_s=v["anchor_time_s"],
        )
        return Response(AdjudicationOutputSerializer(row).data, status=status.HTTP_201_CREATED)


class ItemAuditApi(APIView):
    """The item's audit trail (admins; not one they must still answer blind)."""

    permission_classes = [IsAuthenticated, IsAdmin]
    pagination_class = Pages

    @extend_schema(responses=ItemEventSerializer(many=True))
    def get(self, request: Request, item_id: int) -> Response:
        item_record_get(user=request.user, item_id=item_id)
        return paginate(request, events_for_item(item_id=item_id), ItemEventSerializer)


class GoldItemApi(APIView):
    """POST makes an approved item gold; DELETE stops using it as gold (admins)."""

    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses={201: None})
    def post(self, request: Request, item_id: int) -> Response:
        gold_mark(item=item_in_projects_get(user=request.user, item_id=item_id), admin=request.user)
        return Response({"item": item_id, "gold": True}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: None})
    def delete(self, request: Request, item_id: int) -> Response:
        left = gold_unmark(item=item_in_projects_get(user=request.user, item_id=item_id), admin=request.user)
        return Response({"item": item_id, "gold": False, "left_queues": left})


class AssignmentApi(APIView):
    """POST {reviewer} adds a reviewer to an item in review; DELETE ?reviewer= takes it out of a
    reviewer's queue before they answered (admins)."""

    permission_classes = [IsAuthenticated, IsAdmin]

    class ReviewAssignmentInputSerializer(serializers.Serializer):
        reviewer = serializers.IntegerField(min_value=1, max_value=INT64_MAX)

    @extend_schema(request=ReviewAssignmentInputSerializer, responses={201: None})
    def post(self, request: Request, item_id: int) -> Response:
        item = item_in_projects_get(user=request.user, item_id=item_id)  # 404 before any field error
        data = self.ReviewAssignmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reviewer = get_user_model().objects.filter(id=data.validated_data["reviewer"]).first()
        if reviewer is None:
            return Response({"reviewer": ["no such user"]}, status=status.HTTP_400_BAD_REQUEST)
        row = assignment_add(item=item, reviewer=reviewer, actor=request.user)
        return Response({"id": row.id, "item": item_id, "reviewer": reviewer.pk}, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, parameters=[ReviewAssignmentInputSerializer], responses={204: None})
    def delete(self, request: Request, item_id: int) -> Response:
        item = item_in_projects_get(user=request.user, item_id=item_id)
        data = self.ReviewAssignmentInputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        row = get_object_or_404(
            ReviewAssignment, item=item, revision=item.revision, reviewer_id=data.validated_data["reviewer"]
        )
        assignment_remove(assignment_id=row.id, actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
