"""Pages for every list API, one way: `?limit=` and `?offset=`, answered as {"count", "next",
"previous", "results"}. A list grows with the work (marks of a scene, items, reviews, jobs), so no
list endpoint answers with all of its rows at once: a client that needs them all follows `next`
(static/js/lib/api.js: getAll)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.settings import api_settings

# The most rows one page holds, whatever `limit` asks: a bigger ask gets this many.
MAX_PAGE_SIZE = 500
# Offsets beyond this are past the end of any table: not sent to the database (SQLite's and
# PostgreSQL's OFFSET take 64-bit integers).
MAX_OFFSET = 2**62


class Pages(LimitOffsetPagination):
    """DRF's limit/offset pages, PAGE_SIZE (config/settings/api.py) by default, capped. List views
    name it as `pagination_class` so the schema shows the page, and answer through `paginate`."""

    max_limit = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any]:
        """As DRF's, except that the page is read first and counted only when it cannot tell the
        total itself. A page that comes back short of the limit, with rows or from the start, ends
        the list, so the total is its offset plus its rows: one query instead of two. That is every
        workspace read (a scene's marks, its items, the review queue); with the ETag taken from the
        rendered bytes (annotator.conditional) it took 15-22 % off a scene's marks read
        (bench/README.md, "Reads a save makes, written by hand"). A full page, or one past the end,
        is counted as DRF counts; past the end the answer is an empty page from the end (an offset
        past 64 bits never reaches the database)."""
        self.request = request
        limit = self.get_limit(request) or api_settings.PAGE_SIZE or MAX_PAGE_SIZE
        self.limit, self.offset = limit, self.get_offset(request)
        rows = list(queryset[self.offset : self.offset + limit]) if self.offset <= MAX_OFFSET else []
        if len(rows) < limit and (rows or self.offset == 0):
            self.count = self.offset + len(rows)
        else:
            self.count = self.get_count(queryset)
        return rows


class PageSource(Protocol):
    """Rows read a page at a time other than through a queryset (annotator.hotpath.OwnMarks)."""

    def __getitem__(self, page: slice) -> list[Any]: ...

    def count(self) -> int: ...


def paginate(
    request: Request,
    rows: QuerySet[Any] | list[Any] | PageSource,
    serializer_class: type[BaseSerializer],
    *,
    context: dict[str, Any] | None = None,
    each: Callable[[Any], Any] | None = None,
) -> Response:
    """One page of `rows` (ordered: a page is a slice), serialized (`each` turns a row into what
    the serializer reads, e.g. an assignment into its item); one query for a queryset (the page),
    two when it is full or past the end (then its count too), plus whatever the serializer's
    prefetches add, whatever the total."""
    pages = Pages()
    page = pages.paginate_queryset(rows, request) or []
    if each is not None:
        page = [each(row) for row in page]
    return pages.get_paginated_response(serializer_class(page, many=True, context=context or {}).data)


def paginate_answered(request: Request, rows: PageSource) -> Response:
    """One page of rows a hand-written read has already made in their answer's shape (the review
    queue, annotator.hotpath.queue), paged and counted as `paginate` does."""
    pages = Pages()
    return pages.get_paginated_response(pages.paginate_queryset(rows, request) or [])
