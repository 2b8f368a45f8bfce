"""The projects API: list and create (admins), a project with its label set, plan and members,
membership changes, and the assignment of its scenes (both sides, bulk, reassign). Thin: validate,
call a service or a selector, serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin
from annotator.models import Project, ProjectMembership, Scene
from annotator.pagination import Pages, paginate
from annotator.parsers import INT64_MAX
from annotator.projects import selectors
from annotator.projects.services import (
    membership_add,
    membership_remove,
    project_create,
    scene_reassign,
    scenes_assign,
)


class LabelSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=64)
    kind = serializers.ChoiceField(choices=["instance", "region"])


class ProjectOutputSerializer(serializers.ModelSerializer):
    labels = LabelSerializer(many=True)
    task_mix = serializers.DictField(child=serializers.IntegerField(), help_text="task id -> target item count")

    class Meta:
        model = Project
        fields = ["id", "name", "slug", "description", "labels", "task_mix", "created_at"]


class MemberSerializer(serializers.Serializer):
    user = serializers.IntegerField(source="user_id")
    username = serializers.CharField(source="user.username")
    role = serializers.CharField()


class ProjectListApi(APIView):
    pagination_class = Pages

    class ProjectInputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        slug = serializers.SlugField(max_length=60, required=False, default="")
        description = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)
        labels = serializers.JSONField(help_text='[{"name": "car", "kind": "instance"}, ...]')
        task_mix = serializers.JSONField(required=False, default=dict, help_text='{"zone_counting": 40, ...}')

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated(), IsAdmin()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(responses=ProjectOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return paginate(request, selectors.projects_for_user(user=request.user), ProjectOutputSerializer)

    @extend_schema(request=ProjectInputSerializer, responses={201: ProjectOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.ProjectInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_create(created_by=request.user, **data.validated_data)
        return Response(ProjectOutputSerializer(project).data, status=status.HTTP_201_CREATED)


class ProjectDetailApi(APIView):
    """A project as its members read it: the label set the workspace offers, the planned task
    mix and who takes part."""

    permission_classes = [IsAuthenticated]

    class ProjectDetailSerializer(ProjectOutputSerializer):
        members = serializers.SerializerMethodField()

        class Meta(ProjectOutputSerializer.Meta):
            fields = [*ProjectOutputSerializer.Meta.fields, "members"]

        def get_members(self, obj: Project) -> list[dict[str, Any]]:
            return list(MemberSerializer(selectors.memberships_of(project=obj), many=True).data)

    @extend_schema(responses=ProjectDetailSerializer)
    def get(self, request: Request, project_id: int) -> Response:
        project = selectors.project_get(user=request.user, project_id=project_id)
        return Response(self.ProjectDetailSerializer(project).data)


class ProjectMembersApi(APIView):
    """POST {user, role} adds a member; DELETE ?user=&role= removes one (an annotator who leaves
    loses the project's scenes assigned to them). Admins of the project."""

    permission_classes = [IsAuthenticated, IsAdmin]

    class MemberInputSerializer(serializers.Serializer):
        user = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
        role = serializers.ChoiceField(choices=ProjectMembership.Role.choices)

    @extend_schema(request=MemberInputSerializer, responses={201: MemberSerializer})
    def post(self, request: Request, project_id: int) -> Response:
        project = selectors.project_get(user=request.user, project_id=project_id)
        data = self.MemberInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = get_object_or_404(get_user_model(), id=data.validated_data["user"])
        membership = membership_add(project=project, user=user, role=data.validated_data["role"])
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, parameters=[MemberInputSerializer], responses={204: None})
    def delete(self, request: Request, project_id: int) -> Response:
        project = selectors.project_get(user=request.user, project_id=project_id)
        data = self.MemberInputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        user = get_object_or_404(get_user_model(), id=data.validated_data["user"])
        membership_remove(project=project, user=user, role=data.validated_data["role"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class SideSceneSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    items = serializers.IntegerField(source="item_count")
    approved = serializers.IntegerField(source="approved_count")
    annotators = serializers.SerializerMethodField()

    def get_annotators(self, obj: Scene) -> list[str]:
        return [a.annotator.username for a in obj.assignments.all()]


class SideAnnotatorSerializer(serializers.Serializer):
    user = serializers.IntegerField(source="user.id")
    username = serializers.CharField(source="user.username")
    scenes = serializers.SerializerMethodField()

    def get_scenes(self, obj: dict[str, Any]) -> list[int]:
        return [s.id for s in obj["scenes"]]


class ProjectAssignmentsApi(APIView):
    """GET: the assignment from both sides (per scene its annotators, per annotator their scenes).
    POST {scenes, annotators, mode}: "balanced" gives each scene to one of the annotators (least
    remaining work first), "each" gives every scene to every annotator. Admins of the project."""

    permission_classes = [IsAuthenticated, IsAdmin]

    class BulkInputSerializer(serializers.Serializer):
        scenes = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=INT64_MAX), allow_empty=False
        )
        annotators = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=INT64_MAX), allow_empty=False
        )
        mode = serializers.ChoiceField(choices=["balanced", "each"], default="balanced")

    class SidesSerializer(serializers.Serializer):
        scenes = SideSceneSerializer(many=True)
        annotators = SideAnnotatorSerializer(many=True)

    @extend_schema(responses=SidesSerializer)
    def get(self, request: Request, project_id: int) -> Response:
        project = selectors.project_get(user=request.user, project_id=project_id)
        return Response(self.SidesSerializer(selectors.assignment_sides(project=project)).data)

    @extend_schema(request=BulkInputSerializer, responses={201: None})
    def post(self, request: Request, project_id: int) -> Response:
        project = selectors.project_get(user=request.user, project_id=project_id)
        data = self.BulkInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        made = scenes_assign(
            project=project,
            scene_ids=v["scenes"],
            annotator_ids=v["annotators"],
            balanced=v["mode"] == "balanced",
            assigned_by=request.user,
        )
        rows = [{"scene": a.scene_id, "annotator": a.annotator.username} for a in made]
        return Response({"assigned": rows}, status=status.HTTP_201_CREATED)


class SceneReassignApi(APIView):
    """POST {from, to}: the scene leaves one annotator (at once) for another of its project; with
    no `to` it is only taken away. Admins of the scene's project."""

    permission_classes = [IsAuthenticated, IsAdmin]

    class ReassignInputSerializer(serializers.Serializer):
        from_user = serializers.IntegerField(min_value=1, max_value=INT64_MAX)
        to_user = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=INT64_MAX)

    @extend_schema(request=ReassignInputSerializer, responses={200: None})
    def post(self, request: Request, scene_id: int) -> Response:
        scene = selectors.project_scene_get(user=request.user, scene_id=scene_id)
        data = self.ReassignInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        new = scene_reassign(
            scene=scene, from_user_id=v["from_user"], to_user_id=v.get("to_user"), assigned_by=request.user
        )
        return Response({"scene": scene.id, "annotator": new.annotator.username if new else None})
