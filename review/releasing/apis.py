"""REST API of releases: list, freeze (the build runs as a job), follow a build."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.access.scopes import project_by_slug
from annotator.models import DEFAULT_PROJECT_SLUG, Item
from annotator.pagination import Pages, paginate
from review.models import Release
from review.releasing import selectors, splits
from review.releasing.services import release_abandon, release_create, release_retry


class ReleaseOutputSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    parent = serializers.CharField(source="parent.version", read_only=True, default=None)  # type: ignore[assignment]
    archive_url = serializers.SerializerMethodField()
    warnings = serializers.SerializerMethodField()

    class Meta:
        model = Release
        fields = [
            "id",
            "version",
            "state",
            "progress",
            "error",
            "created_by",
            "created_at",
            "frozen_at",
            "item_count",
            "filters",
            "parent",
            "changelog",
            "manifest",
            "root",
            "items_file",
            "manifest_file",
            "archive_url",
            "warnings",
        ]

    def get_warnings(self, obj: Release) -> list[str]:
        """What the build found worth a look (an empty split, ...), from the manifest."""
        return list((obj.manifest or {}).get("warnings", []))

    def get_archive_url(self, obj: Release) -> str | None:
        return reverse("release-archive", args=[obj.version]) if obj.state == Release.State.FROZEN else None


def release_project_id(*, user: Any, slug: str) -> int:
    return project_by_slug(user=user, slug=slug).id


class ReleaseListApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class ReleaseCreateInputSerializer(serializers.Serializer):
        version = serializers.CharField(max_length=32)
        project = serializers.SlugField(
            required=False, default=DEFAULT_PROJECT_SLUG, help_text="the project whose approved items are frozen"
        )
        tasks = serializers.ListField(child=serializers.ChoiceField(choices=Item.Task.choices), required=False)
        scenes = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False)
        approved_after = serializers.DateTimeField(required=False, allow_null=True)
        approved_before = serializers.DateTimeField(required=False, allow_null=True)
        # Hold back each yes/no task's surplus of its majority fact, so yes and no keys are even.
        balance_yes_no = serializers.BooleanField(required=False, default=True)
        test_share = serializers.FloatField(
            required=False,
            allow_null=True,
            min_value=splits.MIN_TEST_SHARE,
            max_value=splits.MAX_TEST_SHARE,
            help_text="share of the items the test split aims at (whole scene groups move); 0.8 unless given",
        )

        def validate(self, attrs: dict) -> dict:
            after, before = attrs.get("approved_after"), attrs.get("approved_before")
            if after and before and after >= before:
                raise serializers.ValidationError({"approved_before": "must be later than approved_after"})
            return attrs

    pagination_class = Pages

    @extend_schema(responses=ReleaseOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, selectors.releases_list(user=request.user), ReleaseOutputSerializer)

    @extend_schema(request=ReleaseCreateInputSerializer, responses={202: ReleaseOutputSerializer})
    def post(self, request: Request) -> Response:
        """Freeze the approved items that match the filters; 202 while the files are built (follow
        it at /api/releases/<version>/), 409 when that version is being built right now."""
        data = self.ReleaseCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        project_id = release_project_id(user=request.user, slug=fields.pop("project"))
        release = release_create(user=request.user, project_id=project_id, **fields)
        return Response(ReleaseOutputSerializer(release).data, status=status.HTTP_202_ACCEPTED)


class ReleaseDetailApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(responses=ReleaseOutputSerializer)
    def get(self, request: Request, version: str) -> Response:
        return Response(ReleaseOutputSerializer(selectors.release_get(version=version, user=request.user)).data)


class ReleaseRetryApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses={202: ReleaseOutputSerializer})
    def post(self, request: Request, version: str) -> Response:
        """Build a stuck or failed release again (202; follow it at /api/releases/<version>/); 409
        while a live worker builds it or when it is frozen."""
        release = release_retry(release_id=selectors.release_get(version=version, user=request.user).id)
        return Response(ReleaseOutputSerializer(release).data, status=status.HTTP_202_ACCEPTED)


class ReleaseAbandonApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request, version: str) -> Response:
        """Give up a stuck or failed build: its files and rows go and the version is free again
        (204); 409 while a live worker builds it or when it is frozen."""
        release_abandon(release_id=selectors.release_get(version=version, user=request.user).id)
        return Response(status=status.HTTP_204_NO_CONTENT)
