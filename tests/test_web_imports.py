"""What a web process imports: resolving the whole URL configuration, and serving a signed-in
annotator's scene list and workspace page, load none of the media, imaging, plotting or science
stacks (STYLE: heavy libraries are imported inside the function that needs them). Each check runs
in a fresh interpreter, since this test process has long imported them all; a recording import
hook there names the chain of modules that pulled an offender in."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from tests.factories import AnnotatorFactory, SceneFactory
from tests.probe import ROOT, fresh_probe
from tests.workers import database_url

HEAVY = [
    "cv2",
    "matplotlib",
    "rasterio",
    "pyvips",
    "scipy",
    "pandas",
    "statsmodels",
    "sklearn",
    "torch",
    "pyarrow",
    "krippendorff",
    "datasets",
]

# Runs in the fresh interpreter. The finder is first on sys.meta_path and only watches: it records
# the stack (this repository's frames) of the first import of each heavy package, then lets the
# normal finders go on.
PROBE = r"""
import importlib.abc, json, os, sys, traceback

heavy, root, request = json.loads(sys.argv[1])
chains = {}


class Recorder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in heavy and top not in chains:
            frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith("<frozen")]
            ours = [f for f in frames if f.filename.startswith(root) and "/.venv/" not in f.filename]
            chains[top] = [f"{os.path.relpath(f.filename, root)}:{f.lineno} {f.line}" for f in ours or frames]
        return None


sys.meta_path.insert(0, Recorder())

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.urls import URLResolver, get_resolver


def walk(patterns):
    for p in patterns:
        if isinstance(p, URLResolver):
            walk(p.url_patterns)


walk(get_resolver().url_patterns)
out = {"statuses": {}, "bodies": {}}
if request:
    from django.conf import settings
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # as the factories hashed
    client = Client()
    for name, method, url, data in [
        ("login", "post", "/login/", {"username": request["username"], "password": request["password"]}),
        ("scenes", "get", "/api/scenes/", None),
        ("workspace", "get", f"/scenes/{request['scene_id']}/workspace/", None),
    ]:
        response = getattr(client, method)(url, data) if data else getattr(client, method)(url)
        out["statuses"][name] = response.status_code
        if name == "scenes":
            out["bodies"][name] = response.json()
out["offenders"] = chains
print("PROBE-RESULT " + json.dumps(out))
"""


def _probe(request: dict[str, Any] | None, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    return fresh_probe(PROBE, [HEAVY, str(ROOT), request], extra_env)


def _explain(offenders: dict[str, list[str]]) -> str:
    return "\n".join(
        f"{name} was imported by:\n    " + "\n    ".join(chain) for name, chain in sorted(offenders.items())
    )


def test_resolving_the_url_configuration_imports_no_heavy_library() -> None:
    result = _probe(None)
    assert result["offenders"] == {}, _explain(result["offenders"])


@pytest.mark.django_db(transaction=True)  # committed rows, so the probe's own connection sees them
def test_a_signed_in_annotators_requests_import_no_heavy_library() -> None:
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    request = {"username": annotator.username, "password": "pw-test-12345", "scene_id": scene.id}

    result = _probe(request, {"DATABASE_URL": database_url(), "MEDIA_ROOT": str(settings.MEDIA_ROOT)})

    assert result["statuses"] == {"login": 302, "scenes": 200, "workspace": 200}
    listed = result["bodies"]["scenes"]
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [row["id"] for row in rows] == [scene.id]
    assert result["offenders"] == {}, _explain(result["offenders"])
