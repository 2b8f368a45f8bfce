"""Small, composable DRF permissions; object checks return False -> 403, selectors hide -> 404."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from annotator.roles import ADMIN, ANNOTATOR, REVIEWER, has_role


class _RolePermission(BasePermission):
    role: str = ""
    message = "your role does not allow this"

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated and has_role(request.user, self.role))


class IsAnnotator(_RolePermission):
    role = ANNOTATOR
    message = "only annotators can do this"


class IsReviewer(_RolePermission):
    role = REVIEWER
    message = "only reviewers can do this"


class IsAdmin(_RolePermission):
    role = ADMIN
    message = "only admins can do this"


class IsAssignedToScene(BasePermission):
    """The object (a scene, or anything with .scene) is assigned to the requesting annotator."""

    message = "this scene is not assigned to you"

    def has_object_permission(self, request: Request, view: Any, obj: Any) -> bool:
        scene = getattr(obj, "scene", obj)
        return scene.assignments.filter(annotator=request.user).exists()
