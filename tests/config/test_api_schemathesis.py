"""Property-based requests to every operation of the OpenAPI schema, as each role (token auth),
against the real application through WSGI: no answer may be a server error, and every status must
be one the schema documents for the operation. Valid input (positive) and input the schema says is
invalid (negative). Bounded (a few examples per operation, derandomized, no deadline) so it runs in
minutes; path ids are drawn from seeded objects as well as made up."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from config.wsgi import application
from tests.config.world import OWNERSHIP, World, build_world

EXAMPLES = {GenerationMode.POSITIVE: 10, GenerationMode.NEGATIVE: 5}
ROLES = ("annotator", "reviewer", "admin")
CHECKS = [not_a_server_error, status_code_conformance]
# Server errors found and reported, not fixed here (the file is being changed in another branch):
# an integer query parameter past 64 bits reaches the database (OverflowError on SQLite, "out of
# range" on PostgreSQL) because the serializer's IntegerField has no max_value. Remove an entry once
# it is fixed; the test then holds it at 0.
KNOWN_SERVER_ERRORS: set[tuple[str, str]] = set()
# What each path parameter may be besides a made-up value: the seeded objects' ids.


@pytest.fixture
def wsgi_requests() -> Iterator[None]:
    # Django closes "old" connections around each request; inside a test's transaction that would
    # drop the test's data, so (as Django's own test client does) those handlers are detached.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _schema() -> Any:
    document = SchemaGenerator().get_schema(request=None, public=True)
    return schemathesis.openapi.from_dict(json.loads(OpenApiJsonRenderer().render(document)))


def _seeded(world: World, name: str) -> list[Any]:
    values = [world.ids.get(name, {}).get(k) for k in OWNERSHIP]
    if name == "item_id":
        values.append(world.ids["adjudication_item_id"]["own"])
    return [v for v in values if v is not None]


def _fuzz(
    operation: Any, mode: GenerationMode, world: World, token: str, tally: Counter[str], failures: list[str]
) -> None:
    @settings(
        max_examples=EXAMPLES[mode],
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        case = data.draw(operation.as_strategy(mode))
        for name, value in list((case.path_parameters or {}).items()):
            known = _seeded(world, name)
            if known:
                case.path_parameters[name] = data.draw(st.sampled_from([*known, value]))
        headers = {"Authorization": f"Token {token}"}
        try:
            response = case.call(app=application, headers=headers)
        except Exception as exc:  # an exception the handler let through is a server error too
            tally["requests"] += 1
            tally["5xx"] += 1
            failures.append(f"{case.method} {case.formatted_path} raised {exc!r}"[:400])
            return
        tally["requests"] += 1
        tally[f"{response.status_code // 100}xx"] += 1
        documented = operation.definition.raw.get("responses", {})
        if str(response.status_code) not in documented:
            tally["undocumented"] += 1
        try:
            case.validate_response(response, checks=CHECKS, headers=headers)
        except (Exception, BaseExceptionGroup) as exc:  # recorded, so one run reports every operation
            if (case.method, operation.path) in KNOWN_SERVER_ERRORS and response.status_code == 500:
                tally["known 5xx"] += 1
                return
            failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {str(exc)[:300]}")

    try:
        run()
    except Unsatisfiable:
        # Nothing of the operation can be made invalid (no parameters or body): no negative case.
        assert mode == GenerationMode.NEGATIVE
        tally["operations without a negative case"] += 1


@pytest.mark.django_db
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("role", ROLES)
def test_no_server_error_and_no_undocumented_status(role: str, mode: GenerationMode, wsgi_requests: None) -> None:
    world = build_world()
    tally: Counter[str] = Counter()
    failures: list[str] = []
    operations = [result.ok() for result in _schema().get_all_operations()]
    assert len(operations) > 50
    for operation in operations:
        _fuzz(operation, mode, world, world.tokens[role], tally, failures)
    print(f"\n{role} {mode}: {dict(tally)}")
    print("\n".join(failures))
    assert tally["requests"] >= len(operations) * 2
    assert failures == []
    assert tally["5xx"] == tally["known 5xx"] and tally["undocumented"] == tally["known 5xx"]
