"""REST API of releases: list and freeze."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from review.models import Release
from review.releasing import selectors
from review.releasing.services import release_build


class ReleaseOutputSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True)

    class Meta:
        model = Release
        fields = ["id", "version", "created_by", "created_at", "item_count", "manifest", "items_file", "manifest_file"]


class ReleaseListApi(APIView):
    permission_classes = [IsAuthenticated, IsAdmin]

    class ReleaseBuildInputSerializer(serializers.Serializer):
        version = serializers.CharField(max_length=32)

    @extend_schema(responses=ReleaseOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(ReleaseOutputSerializer(selectors.releases_list(), many=True).data)

    @extend_schema(request=ReleaseBuildInputSerializer, responses=ReleaseOutputSerializer)
    def post(self, request: Request) -> Response:
        data = self.ReleaseBuildInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        release = release_build(version=data.validated_data["version"], user=request.user)
        return Response(ReleaseOutputSerializer(release).data, status=status.HTTP_201_CREATED)
