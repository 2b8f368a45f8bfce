"""Pages for every list API, one way: `?limit=` and `?offset=`, answered as {"count", "next",
"previous", "results"}. A list grows with the work (marks of a scene, items, reviews, jobs), so no
list endpoint answers with all of its rows at once: a client that needs them all follows `next`
(static/js/lib/api.js: getAll)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.settings import api_settings

# The most rows one page holds, whatever `limit` asks: a bigger ask gets this many.
MAX_PAGE_SIZE = 500


class Pages(LimitOffsetPagination):
    """DRF's limit/offset pages, PAGE_SIZE (config/settings/api.py) by default, capped. List views
    name it as `pagination_class` so the schema shows the page, and answer through `paginate`."""

    max_limit = MAX_PAGE_SIZE

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any]:
        """As DRF's, except that an empty page still runs its query: the number of queries a list
        costs is the same for no rows as for many (the query-count tests start from none)."""
        self.request = request
        limit = self.get_limit(request) or api_settings.PAGE_SIZE or MAX_PAGE_SIZE
        self.limit, self.offset = limit, self.get_offset(request)
        self.count = self.get_count(queryset)
        # Past the end: an empty page from the end (an offset past 64 bits never reaches the database).
        start = min(self.offset, self.count)
        return list(queryset[start : start + limit])


def paginate(
    request: Request,
    rows: QuerySet[Any] | list[Any],
    serializer_class: type[BaseSerializer],
    *,
    context: dict[str, Any] | None = None,
    each: Callable[[Any], Any] | None = None,
) -> Response:
    """One page of `rows` (ordered: a page is a slice), serialized (`each` turns a row into what
    the serializer reads, e.g. an assignment into its item); two queries for a queryset (its count
    and the page) plus whatever the serializer's prefetches add, whatever the total."""
    pages = Pages()
    page = pages.paginate_queryset(rows, request) or []
    if each is not None:
        page = [each(row) for row in page]
    return pages.get_paginated_response(serializer_class(page, many=True, context=context or {}).data)
