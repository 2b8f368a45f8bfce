"""Small, composable DRF permissions (combine with & and |). Object checks return False -> 403;
objects outside a user's scope are never found (404, see scopes.py).

Pages use the same classes through `page_require`, so a rule is written once."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from annotator.access.roles import ADJUDICATOR, ADMIN, ANNOTATOR, REVIEWER, has_role
from annotator.access.scopes import scene_is_assigned


class _RolePermission(BasePermission):
    role: str = ""
    message = "your role does not allow this"

    def has_permission(self, request: Request | HttpRequest, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and has_role(user, self.role))


class IsAnnotator(_RolePermission):
    role = ANNOTATOR
    message = "only annotators can do this"


class IsReviewer(_RolePermission):
    role = REVIEWER
    message = "only reviewers can do this"


class IsAdmin(_RolePermission):
    role = ADMIN
    message = "only admins can do this"


class IsAdjudicator(_RolePermission):
    role = ADJUDICATOR
    message = "only adjudicators can do this"


class IsAssignedToScene(BasePermission):
    """The object (a scene, or anything with .scene) is assigned to the requesting user."""

    message = "this scene is not assigned to you"

    def has_object_permission(self, request: Request | HttpRequest, view: Any, obj: Any) -> bool:
        scene_id = obj.scene_id if hasattr(obj, "scene_id") else obj.pk
        return scene_is_assigned(user=request.user, scene_id=scene_id)


class IsAuthor(BasePermission):
    """The object (a mark, an item) was made by the requesting user."""

    message = "only its author can change this"

    def has_object_permission(self, request: Request | HttpRequest, view: Any, obj: Any) -> bool:
        return bool(obj.author_id == request.user.pk)


def page_require(request: HttpRequest, *permissions: BasePermission, obj: Any = None) -> None:
    """The page counterpart of DRF's checks: every permission must allow the request (and the
    object, when one is given); raises PermissionDenied (-> 403 page) with the first refusal."""
    for permission in permissions:
        allowed = permission.has_permission(request, None)  # type: ignore[arg-type]
        if allowed and obj is not None:
            allowed = permission.has_object_permission(request, None, obj)  # type: ignore[arg-type]
        if not allowed:
            raise PermissionDenied(getattr(permission, "message", "your role does not allow this page"))
