"""Who may reach what: every route of the URL configuration x every role (anonymous, annotator,
reviewer, adjudicator, admin) x an object that is the user's own, another annotator's, nobody's, or
of a project the user is not a member of ("foreign": refused to every role, whatever else ties the
user to it), by token and by session. The expected outcome comes from a rule stated per route (RULES); a route
without one fails the test, so a new endpoint is classified before it ships.

Outcomes: "allow" is any answer that is not a refusal (a 400 for the empty body sent is an allowed
request); "deny" is 401/403/404, or for a page a redirect to the log-in page. A leak is an allowed
answer where the rule says deny. Writes are sent with an empty body inside a rolled-back savepoint,
so one role's request does not change what the next one sees."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.config.world import FOREIGN, OWNERSHIP, World, build_world

ANON, ANN, REV, ADJ, ADM = "anonymous", "annotator", "reviewer", "adjudicator", "admin"
ROLES = (ANON, ANN, REV, ADJ, ADM)

# A rule: (role, ownership of the object in the path) -> allowed. Ownership is "own" for routes
# without an object. Each mirrors the access module's stated rule (annotator/access/scopes.py).
Rule = Callable[[str, str], bool]


def public(role: str, own: str) -> bool:
    return True


def any_user(role: str, own: str) -> bool:
    return role != ANON


def roles(*names: str) -> Rule:
    return lambda role, own: role in names


def scene(role: str, own: str) -> bool:
    """Admins every scene, annotators their assignments, reviewers the scenes of items assigned to
    them (the own and other scenes), adjudicators those of items in adjudication (the other scene)."""
    judge = (role == REV and own != "unassigned") or (role == ADJ and own == "other")
    return role == ADM or (role == ANN and own == "own") or judge


def annotate(role: str, own: str) -> bool:
    """Drawing and compiling: an annotator on a scene assigned to them (their own marks, items)."""
    return role == ANN and own == "own"


def mark(role: str, own: str) -> bool:
    """Admins every mark, annotators their own, reviewers the marks of items assigned to them,
    except those of an item they must still answer blind (the reviewer has answered the other
    annotator's item, not the annotator's); adjudicators those of items in adjudication (the seeded
    one has no marks)."""
    return role == ADM or (role == ANN and own == "own") or (role == REV and own == "other")


def item(role: str, own: str) -> bool:
    """Admins every item, annotators their own (reviewers go through their queue)."""
    return role == ADM or (role == ANN and own == "own")


def in_queue(role: str, own: str) -> bool:
    """A reviewer's queue: items given to them (own and other's were submitted to both reviewers)."""
    return role == REV and own != "unassigned"


def own_review(role: str, own: str) -> bool:
    return role == REV and own == "own"


def model_view(role: str, own: str) -> bool:
    """Admins any, authors their own, reviewers the items assigned to them (own and other's)."""
    return role == ADM or (role == ANN and own == "own") or (role == REV and own != "unassigned")


def own_work(role: str, own: str) -> bool:
    """A reviewer's or an annotator's own figures."""
    return role in {ANN, REV}


def adjudication(role: str, own: str) -> bool:
    return role in {ADJ, ADM}


admin = roles(ADM)


@dataclass(frozen=True)
class Route:
    rules: dict[str, Rule]  # method -> rule
    page: bool = False  # a Django page: session only, a refusal is a redirect to the log-in page or 403
    token_ok: bool = False  # a page that takes a token too (the release downloads)
    absent: bool = False  # the seeded object has no stored file: an allowed role may get 404
    redirect_ok: bool = False  # a redirect to the log-in page is its answer (log out)


def api(**rules: Rule) -> Route:
    return Route({m.upper(): r for m, r in rules.items()})


def page(rule: Rule, **kw: Any) -> Route:
    return Route({"GET": rule}, page=True, **kw)


RULES: dict[str, Route] = {
    "api-token": api(post=public),
    "api-projects": api(get=any_user, post=admin),
    "api-project": api(get=any_user),  # any member (every user of the world is one)
    "api-project-members": api(post=admin, delete=admin),
    "api-project-assignments": api(get=admin, post=admin),
    "api-scene-reassign": api(post=admin),
    "api-scenes": api(get=any_user, post=admin),
    "api-scene": api(get=scene),
    "api-telemetry-preview": api(post=admin),
    "api-scene-assignments": api(get=admin, post=admin),
    "api-satellite-convert": api(get=scene),
    "api-scene-jobs": api(get=scene),
    "api-scene-keyframes": api(get=scene),
    "api-scene-telemetry": Route({"GET": scene}, absent=True),  # the seeded scene has no track
    "api-job-retry": api(post=admin),
    "api-scene-cvaa": api(get=scene),
    "api-scene-cvaa-previews": api(get=scene),
    "api-cvaa-checkpoints": api(get=admin, post=admin),
    "api-cvaa-checkpoint-activate": Route({"POST": admin}, absent=True),  # no checkpoint is seeded
    "api-cvaa-trainings": api(get=admin, post=admin),
    "api-scene-marks": api(get=scene, post=annotate),
    "api-mark": api(get=mark, patch=annotate, delete=annotate),
    "api-mark-confirm": api(post=annotate),
    "api-scene-tracks": api(post=annotate),
    "api-scene-tracks-batch": api(post=annotate),
    # A tracking job is its author's alone, on a scene still assigned to them.
    "api-track": api(get=annotate),
    "api-track-cancel": api(post=annotate),
    "api-mark-track": api(get=annotate),
    "api-items": api(get=roles(ANN, ADM), post=roles(ANN)),
    "api-items-check": api(post=roles(ANN)),
    "api-items-preview": api(post=roles(ANN)),
    "api-items-bulk": api(post=roles(ANN)),
    "api-item": api(get=item),
    "api-item-submit": api(post=annotate),
    "api-item-recompile": api(post=annotate),
    "api-item-effort": api(post=annotate),
    "api-scene-compile-all": api(post=annotate),
    "api-item-revise": api(post=annotate),
    "api-item-withdraw": api(post=annotate),
    "api-review-queue": api(get=roles(REV)),
    "api-review-item": api(get=in_queue),
    "api-review-answer": api(post=in_queue),
    "api-reviews": api(get=admin),
    "api-review-decision": api(post=own_review),
    "api-review-reasons": api(get=any_user),
    "api-adjudication-queue": api(get=adjudication),
    "api-adjudication-item": api(get=adjudication, post=adjudication),
    "api-item-audit": api(get=admin),
    "api-item-gold": api(post=admin, delete=admin),
    "api-item-assignments": api(post=admin, delete=admin),
    "api-releases": api(get=admin, post=admin),
    "api-release": api(get=admin),
    "api-release-retry": api(post=admin),
    "api-release-abandon": api(post=admin),
    "api-submissions": api(get=admin, post=admin),
    "api-schema": api(get=public),
    "api-docs": api(get=public),
    # pages
    "home": page(any_user),
    "login": page(public),
    "logout": Route({"POST": public}, page=True, redirect_ok=True),
    "projects": page(any_user),
    "project-detail": page(any_user),
    "project-assignments": page(admin),
    "project-dashboard": page(admin),
    "scene-upload": page(admin),
    "scene-detail": page(scene),
    "workspace": page(scene),
    "items-audit": page(admin),
    "items-effort": page(admin),
    "review-queue": page(roles(REV)),
    "review-next": page(roles(REV)),
    "review-item": page(in_queue),
    "adjudication-queue": page(adjudication),
    "adjudication-item": page(adjudication),
    "review-dashboard": page(admin),
    "my-stats": page(own_work),
    "review-settings": page(admin),
    "review-items": page(admin),
    "item-record": page(item),
    "item-gold": Route({"POST": admin}, page=True),
    "item-assign": Route({"POST": admin}, page=True),
    "releases": page(admin),
    "release-build-action": Route({"POST": admin}, page=True),
    "release-archive": page(admin, token_ok=True),
    "leaderboard": page(admin),
    "submission-log": page(admin, absent=True),
    "release-datasheet": page(admin, absent=True),
    "release-file": page(admin, token_ok=True),
    "scene-video": page(scene, token_ok=True),
    "scene-asset": page(token_ok=True, rule=scene, absent=True),
    "satellite-file": page(scene, token_ok=True),
    "satellite-tile": page(token_ok=True, rule=scene, absent=True),
    "keyframe-file": page(scene, token_ok=True),
    "model-view-file": page(token_ok=True, rule=model_view, absent=True),
}
# Django's admin site (its own log-in; none of the seeded users is staff).
ADMIN_SITE = "django-admin/"

# Values of path arguments that are not seeded objects.
FIXED = {
    "action": "retry",
    "filename": "manifest.json",
    "asset": "filmstrip.vtt",
    "tile_path": "0/0_0.png",
    "name": "view.jpg",
    "submission_id": 1,
    "checkpoint_id": 1,
}


def _routes() -> Iterator[tuple[str, URLPattern]]:
    """Every named route; Django's admin site is one entry (its own rule)."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, URLPattern]]:
        for p in patterns:
            if isinstance(p, URLResolver):
                if str(p.pattern) == ADMIN_SITE:
                    continue
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            else:
                yield prefix + str(p.pattern), p

    yield from walk(get_resolver().url_patterns, "")


ROUTES = {p.name or route: p for route, p in _routes()}


def test_every_route_is_classified() -> None:
    unclassified = sorted(set(ROUTES) - set(RULES))
    assert unclassified == [], f"state the access rule of these routes in RULES: {unclassified}"
    assert sorted(set(RULES) - set(ROUTES)) == []
    assert any(str(p.pattern) == ADMIN_SITE for p in get_resolver().url_patterns if isinstance(p, URLResolver))


def _kwargs(world: World, pattern: URLPattern, own: str) -> dict[str, Any] | None:
    names = list(pattern.pattern.converters) if hasattr(pattern.pattern, "converters") else []
    names = names or list(pattern.pattern.regex.groupindex)
    kwargs: dict[str, Any] = {}
    for name in names:
        if name in FIXED:
            kwargs[name] = FIXED[name]
            continue
        key = "adjudication_item_id" if pattern.name and "adjudication" in pattern.name else name
        value = world.ids[key].get(own)
        if value is None:
            return None
        kwargs[name] = value
    return kwargs


def _objects(world: World, pattern: URLPattern) -> list[str]:
    """The ownerships worth trying: one when the path names no object, and the foreign one for a
    release (a version names one release, which belongs to one project)."""
    names = [n for n in pattern.pattern.regex.groupindex if n not in FIXED]
    if any(n not in {"version", "index"} for n in names):
        return [*OWNERSHIP, FOREIGN]
    return ["own", FOREIGN] if "version" in names else ["own"]


def _client(world: World, role: str, auth: str) -> APIClient:
    client = APIClient()
    if role != ANON:
        if auth == "token":
            client.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
        else:
            client.force_login(world.users[role])
    return client


def _outcome(response: Any, route: Route) -> str:
    code = response.status_code
    if code >= 500:
        return "error"
    if code in (401, 403, 404, 405):
        return "deny"
    if code in (301, 302) and "/login/" in response.get("Location", "") and not route.redirect_ok:
        return "deny"
    return "allow"


def _call(client: APIClient, method: str, url: str, route: Route) -> Any:
    with transaction.atomic():
        if method == "GET":
            response = client.get(url)
        elif route.page:
            response = client.generic(method, url, "", content_type="application/x-www-form-urlencoded")
        else:
            response = client.generic(method, url, "{}", content_type="application/json")
        transaction.set_rollback(True)
    return response


def _expected(route: Route, rule: Rule, role: str, own: str, auth: str) -> str:
    if own == FOREIGN:
        return "deny"  # another project's object: nobody outside it reaches it
    if route.page and auth == "token" and not route.token_ok and role != ANON:
        return "deny" if rule(ANON, own) is False else "allow"  # a page reads the session only
    return "allow" if rule(role, own) else "deny"


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(RULES))
def test_route_answers_each_role_as_its_rule_says(name: str, report: list[str]) -> None:
    world = build_world()
    pattern, route = ROUTES[name], RULES[name]
    mismatches: list[str] = []
    for own in _objects(world, pattern):
        kwargs = _kwargs(world, pattern, own)
        if kwargs is None:
            continue
        url = "/" + _url(pattern, kwargs)
        for method, rule in route.rules.items():
            for role in ROLES:
                for auth in ("token", "session"):
                    if role == ANON and auth == "session":
                        continue
                    response = _call(_client(world, role, auth), method, url, route)
                    got, want = _outcome(response, route), _expected(route, rule, role, own, auth)
                    report.append(f"{name} {method} {role} {own} {auth} {response.status_code} {want}")
                    if got == want or (want == "allow" and got == "deny" and route.absent and role != ANON):
                        continue
                    kind = "LEAK" if want == "deny" and got == "allow" else got.upper()
                    mismatches.append(f"{kind}: {method} {url} as {role} ({auth}, {own}) -> {response.status_code}")
    print("\n" + "\n".join(mismatches))
    assert not mismatches, "\n".join(mismatches)


def _url(pattern: URLPattern, kwargs: dict[str, Any]) -> str:
    from django.urls import reverse

    return reverse(pattern.name, kwargs=kwargs).lstrip("/")


@pytest.mark.django_db
def test_django_admin_site_is_for_staff_only(client: Any) -> None:
    world = build_world()
    for role in ROLES:
        if role != ANON:
            client.force_login(world.users[role])
        response = client.get("/" + ADMIN_SITE)
        assert response.status_code == 302 and "/django-admin/login/" in response["Location"], role


@pytest.fixture(scope="module")
def report() -> Iterator[list[str]]:
    rows: list[str] = []
    yield rows
    print(f"\nauthorization matrix: {len(rows)} requests")
