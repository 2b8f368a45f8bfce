"""Who sees and changes what as assignments change: reviewers see only the items they judge (not
every submitted one), adjudicators the items in adjudication, and an annotator removed from a scene
can no longer compile, submit or load its images, at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import Http404

from annotator.access.scopes import item_get_with_view, scenes_visible
from annotator.models import Assignment, Item, Scene
from review.models import ReviewAssignment
from tests.factories import AnnotatorFactory, ItemFactory, MarkFactory, SceneFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_reviewer_sees_the_model_view_and_scene_only_of_items_assigned_to_them(reviewer: Any) -> None:
    item = ItemFactory(state=Item.State.IN_REVIEW)
    with pytest.raises(Http404):
        item_get_with_view(user=reviewer, item_id=item.id)
    assert not scenes_visible(user=reviewer, qs=Scene.objects.all()).exists()

    ReviewAssignment.objects.create(item=item, revision=item.revision, reviewer=reviewer)

    assert item_get_with_view(user=reviewer, item_id=item.id) == item
    assert list(scenes_visible(user=reviewer, qs=Scene.objects.all())) == [item.scene]


def test_an_adjudicator_sees_items_in_adjudication_not_those_in_review() -> None:
    from annotator.access.roles import ADJUDICATOR

    judge = UserFactory(username="judge", roles=[ADJUDICATOR])
    waiting = ItemFactory(state=Item.State.IN_ADJUDICATION)
    reviewing = ItemFactory(state=Item.State.IN_REVIEW)

    assert item_get_with_view(user=judge, item_id=waiting.id) == waiting
    with pytest.raises(Http404):
        item_get_with_view(user=judge, item_id=reviewing.id)


@pytest.fixture
def removed(api: Any) -> dict[str, Any]:
    """An annotator with a mark and a draft on a scene, then removed from it."""
    annotator = AnnotatorFactory(username="leaving")
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, facts={"visible": True})
    draft = api(annotator).post("/api/items/", {"task": "target_visibility", "mark_ids": [mark.id]}, format="json")
    assert draft.status_code == 201, draft.content
    image = scene.satellite_images.get()
    client = api(annotator)
    assert client.get(f"/media/satellite/{image.id}").status_code == 200  # cached as allowed
    Assignment.objects.filter(scene=scene, annotator=annotator).delete()
    return {"client": client, "mark": mark, "item_id": draft.json()["id"], "image": image}


def test_a_removed_annotator_can_no_longer_compile_or_submit(removed: dict[str, Any]) -> None:
    client, mark = removed["client"], removed["mark"]

    compiled = client.post("/api/items/", {"task": "target_visibility", "mark_ids": [mark.id]}, format="json")
    submitted = client.post(f"/api/items/{removed['item_id']}/submit/", {}, format="json")

    assert compiled.status_code == 403 and compiled.json()["detail"] == "this scene is no longer assigned to you"
    assert submitted.status_code == 403
    assert Item.objects.get(id=removed["item_id"]).state == Item.State.DRAFT


def test_a_removed_annotator_loses_the_scenes_images_at_once(removed: dict[str, Any]) -> None:
    assert removed["client"].get(f"/media/satellite/{removed['image'].id}").status_code == 404


def test_a_removed_annotators_home_page_no_longer_lists_the_scenes_items(removed: dict[str, Any]) -> None:
    # given the removed annotator's session / when their home page opens
    from django.test import Client

    from annotator.models import Item as ItemModel

    author = ItemModel.objects.get(id=removed["item_id"]).author
    client = Client()
    client.force_login(author)
    page = client.get("/")

    # then the draft on the lost scene is not listed (its link would open a scene that answers 404)
    assert page.status_code == 200
    assert [i.id for i in page.context["items"]] == []
    assert ItemModel.objects.get(id=removed["item_id"]).uid not in page.content.decode()
