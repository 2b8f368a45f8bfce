"""Project scoping of the lists: a member of one project sees nothing of another, whatever else
(assignments, authorship, review assignments) would show it to them."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from annotator.models import Item
from review.models import Release
from tests.config.world import build_world

pytestmark = pytest.mark.django_db


def _ids(api: Any, user: Any, url: str, key: str = "id") -> set[Any]:
    response = api(user).get(url)
    assert response.status_code == 200, (url, response.status_code)
    return {row[key] for row in response.json()["results"]}


def test_a_member_of_one_project_lists_nothing_of_another(api: Any) -> None:
    # given the world (every user a member of the default project) and its foreign project
    world = build_world()
    foreign = {name: ids["foreign"] for name, ids in world.ids.items() if "foreign" in ids}
    admin, annotator, reviewer = (world.users[r] for r in ("admin", "annotator", "reviewer"))

    # then no list shows its scene, items, reviews or release to anyone of the default project
    for user in (admin, annotator, reviewer):
        assert foreign["scene_id"] not in _ids(api, user, "/api/scenes/")
    for user in (admin, annotator):
        assert foreign["item_id"] not in _ids(api, user, "/api/items/")
    queue = _ids(api, reviewer, "/api/review/queue/")
    assert foreign["item_id"] not in queue and world.ids["item_id"]["other"] in queue
    assert foreign["review_id"] not in _ids(api, admin, "/api/reviews/")
    assert foreign["version"] not in _ids(api, admin, "/api/releases/", key="version")
    # while the default project's own rows are there
    assert world.ids["scene_id"]["own"] in _ids(api, annotator, "/api/scenes/")
    assert "9.0" in _ids(api, admin, "/api/releases/", key="version")


def test_a_superuser_sees_every_project(api: Any) -> None:
    world = build_world()
    root = world.users["admin"]
    root.is_superuser = True
    root.save()
    assert world.ids["scene_id"]["foreign"] in _ids(api, root, "/api/scenes/")
    assert world.ids["version"]["foreign"] in _ids(api, root, "/api/releases/", key="version")


def test_a_release_freezes_only_its_projects_approved_items(admin: Any) -> None:
    from review.releasing.services import release_create
    from tests.factories import ItemFactory, ProjectFactory, SceneFactory

    other = ProjectFactory(members={"admin": [admin]})
    ItemFactory(scene=SceneFactory(project=other), state=Item.State.APPROVED)
    with pytest.raises(Exception) as err:  # the default project has nothing approved
        release_create(version="1.0", user=admin, enqueue=False)
    assert "no approved items" in str(err.value)
    assert not Release.objects.exists() and timezone.now()
