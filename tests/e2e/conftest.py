"""Browser fixtures: Debian's Chromium driven by Playwright against pytest-django's live server."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotator.models import ProjectMembership, project_default_id

CHROMIUM = Path(os.environ.get("SKYMARK_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).parent / "artifacts"
PASSWORD = "e2e-password-1234"

# Playwright's sync API runs an event loop in this thread; Django's ORM guard would otherwise
# refuse database calls made from the test body between browser steps.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does) or set SKYMARK_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-background-networking",
                "--disable-gpu",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def make_user(db) -> Callable[[str, str], object]:  # type: ignore[no-untyped-def]
    def make(username: str, role: str) -> object:
        user = get_user_model().objects.create_user(username=username, password=PASSWORD)
        user.groups.add(Group.objects.get_or_create(name=role)[0])  # transactional tests flush migration data
        # a member of the default project, where scenes imported without naming one go
        ProjectMembership.objects.get_or_create(project_id=project_default_id(), user=user, role=role)
        return user

    return make


@pytest.fixture
def login(browser, live_server):  # type: ignore[no-untyped-def]
    """Open a fresh browser context logged in as `username` through the login page."""
    contexts = []

    def open_as(username: str):  # type: ignore[no-untyped-def]
        context = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=live_server.url)
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors
        page.goto("/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        return page

    yield open_as
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot(request):  # type: ignore[no-untyped-def]
    """Save a PNG of what the browser showed, under tests/e2e/artifacts/<test>/."""
    folder = ARTIFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)

    def save(page, name: str, full_page: bool = False) -> Path:  # type: ignore[no-untyped-def]
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save


@pytest.fixture
def taxonomy(db) -> None:  # type: ignore[no-untyped-def]
    """The rejection reasons as migration review.0004 seeds them, from its own list: a transactional
    test after the first finds the tables emptied."""
    import importlib

    from review.models import RejectionReason

    seed = importlib.import_module("review.migrations.0004_review_flow").REASONS_SEED
    for position, (code, label, description, group) in enumerate(seed):
        RejectionReason.objects.get_or_create(
            code=code, defaults={"label": label, "description": description, "group": group, "position": position}
        )


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run media jobs inline: the browser tests are about the pages, the worker has its own test."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture
def scene(testdata: Path, make_user, eager_celery):  # type: ignore[no-untyped-def]
    """The Saro clip with its own first frame as the map, assigned to "ann"; users for every role
    (reviewers "rev", "rev1", "rev2"; admin "ada"). Media jobs have run inline, all but the placements
    job (it matches every keyframe on the map, seconds the pages most tests drive never read): it stays
    pending, unsent. A test that needs placements takes `scene_placed` instead."""
    from annotator.intake.services import SceneSpec, scene_import
    from annotator.models import MediaJob
    from annotator.processing import graph

    make_user("ann", "annotator")
    for name in ("rev", "rev1", "rev2"):
        make_user(name, "reviewer")
    make_user("ada", "admin")
    spec = SceneSpec(
        name="Saro",
        video=testdata / "videos/saro_roundabout_topdown_1080p_3fps.mp4",
        satellite_from_keyframe_s=0,
        annotators=["ann"],
    )
    # No input's end starts the placements job during the import (the graph without that edge).
    with pytest.MonkeyPatch.context() as mp:
        for edges in (graph.NEXT, graph.IMAGE_NEXT):
            for kind, after in list(edges.items()):
                mp.setitem(edges, kind, [k for k in after if k != MediaJob.Kind.PLACEMENTS])
        return scene_import(spec=spec, created_by=None)


@pytest.fixture
def scene_placed(scene):  # type: ignore[no-untyped-def]
    """`scene` with its placements job run here, as a worker would run it (the real step)."""
    from annotator.models import MediaJob
    from annotator.processing import graph

    job = MediaJob.objects.get(scene=scene, kind=MediaJob.Kind.PLACEMENTS)
    assert (job.state, job.attempts) == (MediaJob.State.PENDING, 0)  # `scene` did not pay for it
    graph.job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.state == MediaJob.State.SUCCEEDED, (job.state, job.error, job.detail)
    return scene
