"""The two doors people and scripts log in through, both subject to the failed-log-in lockout
(`lockout.py`): the login page's form and the token endpoint."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.openapi import THROTTLED

from .lockout import locked_for, wait_message


class LockoutAuthenticationForm(AuthenticationForm):
    def clean(self) -> dict[str, Any]:
        wait = locked_for(self.data.get("username", ""), self.request)
        if wait:
            # Said before checking the password, so a locked account is not a password oracle.
            raise forms.ValidationError(wait_message(wait), code="locked")
        return super().clean()


class TokenApi(ObtainAuthToken):
    """POST username + password -> {"token": ...}; 429 with Retry-After while locked out."""

    @extend_schema(
        request=AuthTokenSerializer,
        responses={200: inline_serializer("Token", {"token": serializers.CharField()}), 429: THROTTLED},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        username = request.data.get("username", "") if hasattr(request.data, "get") else ""
        wait = locked_for(str(username), request._request)
        if wait:
            body = {"detail": wait_message(wait)}
            return Response(body, status=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": str(wait)})
        return super().post(request, *args, **kwargs)
