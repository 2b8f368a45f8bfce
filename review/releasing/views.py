"""Release pages: freeze approved items (with filters and the test share), follow builds, read the
datasheet, download files or the whole release as a streamed zip.

Downloads are DRF views, so a script can fetch them with `Authorization: Token ...` as well as a
browser with its session: an API client is answered 401 (no or a bad token), 403 (not an admin) or
404, never a redirect to the login page, which only a browser that is not logged in still gets."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.scopes import items_visible, projects_visible, scenes_visible
from annotator.exceptions import Conflict
from annotator.models import DEFAULT_PROJECT_SLUG, Item, Scene
from annotator.openapi import UNAUTHENTICATED
from annotator.processing.lease import lease_live
from annotator.serving import serve_stored
from review.models import Release
from review.releasing import selectors, splits
from review.releasing.apis import ReleaseListApi, release_project_id
from review.releasing.archive import stream_zip
from review.releasing.services import release_abandon, release_create, release_retry

DATASHEET = "datasheet/index.html"


def _form_errors(exc: ValidationError) -> str:
    return " ".join(m for msgs in exc.message_dict.values() for m in msgs)


@login_required
def releases_page(request: HttpRequest) -> HttpResponse:
    page_require(request, IsAdmin())
    error = None
    if request.method == "POST":
        form = ReleaseListApi.ReleaseCreateInputSerializer(
            data={
                "version": request.POST.get("version", ""),
                "project": request.POST.get("project") or DEFAULT_PROJECT_SLUG,
                "tasks": request.POST.getlist("tasks"),
                "scenes": request.POST.getlist("scenes"),
                "approved_after": request.POST.get("approved_after") or None,
                "approved_before": request.POST.get("approved_before") or None,
                # a checkbox: absent when unticked (the form shows it ticked)
                "balance_yes_no": request.POST.get("balance_yes_no") == "on",
                "test_share": request.POST.get("test_share") or None,
            }
        )
        try:
            if not form.is_valid():
                raise ValidationError({k: [str(m) for m in v] for k, v in form.errors.items()})
            fields = dict(form.validated_data)
            project_id = release_project_id(user=request.user, slug=fields.pop("project"))
            release = release_create(user=request.user, project_id=project_id, **fields)
        except ValidationError as exc:
            error = _form_errors(exc)
        except Conflict as exc:
            error = str(exc)
        else:
            messages.success(
                request, f"Release {release.version}: {release.item_count} items frozen; building its files."
            )
            return redirect("releases")
    releases = list(selectors.releases_list(user=request.user))
    approved = Item.objects.filter(state=Item.State.APPROVED)
    approved_scenes = Scene.objects.filter(items__state=Item.State.APPROVED).distinct()
    # A build whose worker stopped renewing its lease (or a failed one) can be retried or abandoned.
    for r in releases:
        # (a building one without a lease: its worker vanished before leases existed, or the queue
        # could not take it and `error` says so)
        r.stuck = r.state == Release.State.FAILED or (  # type: ignore[attr-defined]
            r.state == Release.State.BUILDING
            and not lease_live(r.lease_until)
            and (r.lease_until is not None or r.progress > 0 or bool(r.error))
        )
    return render(
        request,
        "review/releases.html",
        {
            "releases": releases,
            "error": error,
            "approved_count": items_visible(user=request.user, qs=approved).count(),
            "tasks": Item.Task.choices,
            "scenes": scenes_visible(user=request.user, qs=approved_scenes).order_by("name"),
            "projects": projects_visible(user=request.user),
            "test_share_default": splits.TEST_SHARE,
            "test_share_range": (splits.MIN_TEST_SHARE, splits.MAX_TEST_SHARE),
        },
        status=400 if error else 200,
    )


@require_POST
@login_required
def release_build_action(request: HttpRequest, version: str, action: str) -> HttpResponse:
    """The releases page's Retry / Abandon buttons of a stuck or failed build."""
    page_require(request, IsAdmin())
    release = selectors.release_get(version=version, user=request.user)
    try:
        if action == "retry":
            release_retry(release_id=release.id)
            messages.success(request, f"Release {version}: building again.")
        elif action == "abandon":
            release_abandon(release_id=release.id)
            messages.success(request, f"Release {version} abandoned; its files are removed and the version is free.")
        else:
            raise Http404("no such action")
    except Conflict as exc:
        messages.error(request, str(exc))
    return redirect("releases")


def _frozen(version: str, user: Any) -> Release:
    release = selectors.release_get(version=version, user=user)
    if release.state != Release.State.FROZEN:
        raise Http404(f"release {version} is {release.state}, not ready to download")
    return release


@login_required
def release_datasheet(request: HttpRequest, version: str) -> HttpResponseBase:
    """The datasheet as a page (its figures are inside it), not as a download."""
    page_require(request, IsAdmin())
    release = _frozen(version, request.user)
    return serve_stored(request, f"{release.root}/{DATASHEET}")


class _DownloadView(APIView):
    # Token first: an anonymous API client is told 401 with `WWW-Authenticate: Token`.
    authentication_classes = [TokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated, IsAdmin]

    def handle_exception(self, exc: Exception) -> Any:  # a Response, or the login redirect
        # A browser that is not logged in (no Authorization header, asks for a page) goes to the login page.
        request = self.request
        browser = "text/html" in request.headers.get("Accept", "") and "Authorization" not in request.headers
        if isinstance(exc, NotAuthenticated) and browser:
            return redirect_to_login(request.get_full_path())
        return super().handle_exception(exc)


_DOWNLOAD = {(200, "application/octet-stream"): OpenApiTypes.BINARY, 401: UNAUTHENTICATED}


class ReleaseFileView(_DownloadView):
    @extend_schema(responses=_DOWNLOAD)
    def get(self, request: Request, version: str, filename: str) -> HttpResponseBase:
        """One file of a frozen release (any listed in its manifest, or the manifest), streamed."""
        release = _frozen(version, request.user)
        listed = {f["path"] for f in release.manifest.get("files", [])} | {"manifest.json"}
        if filename not in listed:
            raise Http404("not a file of this release")
        name = f"{version}-{filename.replace('/', '-')}"
        return serve_stored(request, f"{release.root}/{filename}", download_as=name)


class ReleaseArchiveView(_DownloadView):
    @extend_schema(responses={(200, "application/zip"): OpenApiTypes.BINARY, 401: UNAUTHENTICATED})
    def get(self, request: Request, version: str, **_: Any) -> HttpResponseBase:
        """The whole release as a zip, streamed as it is written."""
        release = _frozen(version, request.user)
        folder = f"skymark-{version}"
        response = StreamingHttpResponse(
            stream_zip(release.root, folder, release.manifest["files"]), content_type="application/zip"
        )
        response["Content-Disposition"] = f'attachment; filename="{folder}.zip"'
        return response


release_file = ReleaseFileView.as_view()
release_archive = ReleaseArchiveView.as_view()
