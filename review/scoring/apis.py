"""REST API of scoring: submit predictions for a frozen release, read its leaderboard."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.pagination import Pages, paginate
from review.models import Submission
from review.releasing.selectors import release_get
from review.scoring.selectors import leaderboard
from review.scoring.services import predictions_read, submission_create


class SubmissionOutputSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", read_only=True)
    submitted_by = serializers.CharField(source="submitted_by.username", read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "release", "name", "submitted_by", "created_at", "predictions_sha256", "overall", "report"]


class SubmissionListApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]
    parser_classes = [MultiPartParser, FormParser]

    class SubmissionInputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=120)
        predictions = serializers.FileField(
            help_text="JSONL ({'id', 'answer'} per line) or TSV (index, prediction); lines with 'variant': 'cvaa' "
            "(a variant column in a TSV) answer question_cvaa and are scored as a second row"
        )

    pagination_class = Pages

    @extend_schema(responses=SubmissionOutputSerializer(many=True))
    def get(self, request: Request, version: str) -> Response:
        release = release_get(version=version, user=request.user)
        return paginate(request, leaderboard(release=release), SubmissionOutputSerializer)

    @extend_schema(request=SubmissionInputSerializer, responses={201: SubmissionOutputSerializer})
    def post(self, request: Request, version: str) -> Response:
        release = release_get(version=version, user=request.user)
        data = self.SubmissionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["predictions"]
        submission = submission_create(
            release=release,
            name=data.validated_data["name"],
            data=predictions_read(upload=upload),
            filename=upload.name,
            user=request.user,
        )
        return Response(SubmissionOutputSerializer(submission).data, status=status.HTTP_201_CREATED)
