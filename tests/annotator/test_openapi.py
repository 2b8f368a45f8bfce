"""The OpenAPI schema validates with no warning, and says what the API answers: 201 where it
creates, multipart for uploads, and the 4xx answers each operation can give."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command

METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = Path(tmp_path_factory.mktemp("schema")) / "schema.yaml"
    # --fail-on-warn raises on any warning or error (duplicate component names, unresolved fields,
    # enum collisions), so this line is the check.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return yaml.safe_load(out.read_text())


def _op(schema: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    return schema["paths"][path][method]


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, ops in schema["paths"].items() for m, op in ops.items() if m in METHODS]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/scenes/",
        "/api/scenes/{scene_id}/assignments/",
        "/api/scenes/{scene_id}/marks/",
        "/api/items/",
        "/api/items/{item_id}/recompile/",
        "/api/scenes/{scene_id}/items/compile-all/",
        "/api/cvaa/trainings/",
        "/api/cvaa/checkpoints/",
        "/api/review/items/{item_id}/answer/",
        "/api/review/adjudication/{item_id}/",
        "/api/releases/{version}/submissions/",
    ],
)
def test_creating_posts_document_201(schema: dict[str, Any], path: str) -> None:
    assert "201" in _op(schema, "post", path)["responses"]


@pytest.mark.django_db
def test_every_operation_documents_its_4xx_answers(schema: dict[str, Any]) -> None:
    ops = _operations(schema)
    assert len(ops) > 50
    for method, path, op in ops:
        codes = set(op["responses"])
        assert "403" in codes, (method, path)
        if "{" in path:
            assert {"400", "404"} <= codes, (method, path)
        if method in {"post", "put", "patch"}:
            assert {"400", "409", "413", "415"} <= codes, (method, path)
    errors = schema["components"]["schemas"]["Error"]
    assert errors["required"] == ["detail"]
    assert "current" in schema["components"]["schemas"]["Conflict"]["properties"]


@pytest.mark.django_db
def test_field_errors_and_lockout_are_described(schema: dict[str, Any]) -> None:
    bad = _op(schema, "post", "/api/items/")["responses"]["400"]["content"]["application/json"]["schema"]
    assert bad["type"] == "object" and "additionalProperties" in bad
    token = _op(schema, "post", "/api/auth/token/")["responses"]
    assert token["429"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert token["200"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Token"}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/scenes/", "/api/cvaa/checkpoints/", "/api/releases/{version}/submissions/"])
def test_uploads_are_multipart_only(schema: dict[str, Any], path: str) -> None:
    assert list(_op(schema, "post", path)["requestBody"]["content"]) == ["multipart/form-data"]


@pytest.mark.django_db
def test_item_check_and_compile_all_answers_are_components(schema: dict[str, Any]) -> None:
    check = _op(schema, "post", "/api/items/check/")["responses"]["200"]["content"]["application/json"]["schema"]
    assert check == {"$ref": "#/components/schemas/ItemCheckOutput"}
    props = schema["components"]["schemas"]["CompileAllOutput"]["properties"]
    assert set(props) == {"items", "tasks", "truncated"}
    downloads = _op(schema, "get", "/releases/{version}.zip")["responses"]
    assert "application/zip" in downloads["200"]["content"] and "401" in downloads
