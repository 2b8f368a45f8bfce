"""Release pages: freeze approved items, download a release's files."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render

from annotator.access.permissions import IsAdmin, page_require
from annotator.models import Item
from annotator.serving import serve_stored
from review.releasing import selectors
from review.releasing.services import release_build


@login_required
def releases_page(request: HttpRequest) -> HttpResponse:
    page_require(request, IsAdmin())
    error = None
    if request.method == "POST":
        try:
            release = release_build(version=request.POST.get("version", ""), user=request.user)
        except ValidationError as exc:
            error = " ".join(m for msgs in exc.message_dict.values() for m in msgs)
        else:
            messages.success(request, f"Release {release.version} frozen with {release.item_count} items.")
            return redirect("releases")
    return render(
        request,
        "review/releases.html",
        {
            "releases": selectors.releases_list(),
            "error": error,
            "approved_count": Item.objects.filter(state=Item.State.APPROVED).count(),
        },
        status=400 if error else 200,
    )


@login_required
def release_file(request: HttpRequest, version: str, filename: str) -> HttpResponseBase:
    page_require(request, IsAdmin())
    release = selectors.release_get(version=version)
    files = {"items.jsonl": release.items_file, "manifest.json": release.manifest_file}
    if filename not in files:
        raise PermissionDenied("not a file of this release")
    return serve_stored(request, files[filename], download_as=f"{version}-{filename}")
