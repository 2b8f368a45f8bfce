"""Blind review through every door (annotator.access.scopes, fed by review.reviewing.blind): a
reviewer assigned an item and not yet answered gets its model view and nothing that names or
locates the key — no marks (geometry, times, ids, facts), no key, provenance, record or audit —
from any API or page; once they answer that revision, the marks and the workspace are theirs.
Adjudicators see the model view of the items in adjudication, and their home lists them."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.access.roles import ADJUDICATOR, REVIEWER
from annotator.models import Item, Mark, ModelView
from review.reviewing.services import review_start
from tests.factories import AdminFactory, ItemFactory, MarkFactory, UserFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db

FILES = {"view.jpg": b"view-bytes", "option-A.jpg": b"a-bytes", "video.mp4": b"segment-bytes"}


def _rendered(item: Item) -> None:
    """A rendered model view with stored files (the job's output, written as the job writes it)."""
    stored = {n: default_storage.save(f"modelviews/{item.id}-{n}", ContentFile(data)) for n, data in FILES.items()}
    ModelView.objects.update_or_create(
        item=item,
        defaults={
            "state": ModelView.State.SUCCEEDED,
            "image": stored["view.jpg"],
            "video": stored["video.mp4"],
            "option_images": [{"option": "A", "file": stored["option-A.jpg"]}],
        },
    )


def _leaks(body: str, mark: Mark, item: Item) -> list[str]:
    """What of the key's whereabouts a response carries: the mark's geometry, id, facts, provenance."""
    found = []
    if json.dumps(mark.geometry["coordinates"]).replace(" ", "") in body.replace(" ", ""):
        found.append("geometry")
    for needle in (f'"id":{mark.id},', f'"id": {mark.id},', '"mark_ids"', '"provenance"', '"answer"'):
        if needle in body:
            found.append(needle)
    if re.search(rf"#{mark.id}\b", body):
        found.append(f"#{mark.id}")
    if '"visible"' in body:
        found.append("facts")
    return found


def _item_doors(item: Item) -> dict[str, str]:
    scene = item.scene_id
    mark_id = item.marks.get().id
    return {
        "queue api": "/api/review/queue/",
        "blind api": f"/api/review/items/{item.id}/",
        "marks": f"/api/scenes/{scene}/marks/",
        "marks as features": f"/api/scenes/{scene}/marks/?as=features",
        "mark": f"/api/marks/{mark_id}/",
        "item api": f"/api/items/{item.id}/",
        "audit api": f"/api/review/items/{item.id}/audit/",
        "record page": f"/items/{item.id}/record/",
        "blind page": f"/review/items/{item.id}/",
        "workspace page": f"/scenes/{scene}/workspace/?item={item.id}&embed=1",
        "scene page": f"/scenes/{scene}/",
    }


def _walk(client: Any, item: Item) -> dict[str, tuple[int, list[str]]]:
    mark = item.marks.get()
    seen = {}
    for door, url in _item_doors(item).items():
        response = client.get(url)
        body = response.content.decode() if response.status_code == 200 else ""
        seen[door] = (response.status_code, _leaks(body, mark, item))
    return seen


def _ids_apart() -> None:
    """The next mark (made with its scene and image, as `submit` makes it) and its item get ids of
    their own. Sequences go on across tests, so what ran before decides where each stands: probes
    tell where each goes next, and more probes move them (at different rates) until all differ."""
    for _ in range(10):
        probe, first, second = ItemFactory(), MarkFactory(), MarkFactory()
        item = probe.id + 1
        probe.delete()  # only the sequence is wanted: no other item is to be seen on a door
        mark = 2 * second.id - first.id
        image = 2 * second.satellite_image_id - first.satellite_image_id
        if len({mark, image, item}) == 3:
            return
    raise AssertionError("the ids of marks, images and items stay in step")


@pytest.mark.parametrize("also_admin", [False, True], ids=["reviewer", "reviewer-and-admin"])
def test_before_answering_no_door_locates_the_key(submit, client, also_admin: bool) -> None:
    # given an item in review assigned to one reviewer (an admin too, in the second case), whose
    # mark another approved item of the same scene shares
    reviewer = UserFactory(username="rev1", roles=[REVIEWER, *(["admin"] if also_admin else [])])
    MarkFactory.create_batch(3, geometry={"type": "Point", "coordinates": [3, 3]}, kind=Mark.Kind.POINT, time_end=None)
    _ids_apart()  # nor its satellite image's (the workspace lists the scene's images by id)
    item = submit()  # its mark's id is neither the item's nor the image's, so an id in a body is told apart
    _rendered(item)
    client.force_login(reviewer)
    assert item.marks.get().id not in (item.id, item.marks.get().satellite_image_id)

    # when they walk every door of the item before answering
    seen = _walk(client, item)

    # then none carries the marks, their ids, facts, provenance or the key; the mark and the
    # item's key-bearing views are not found at all
    assert {door: leaks for door, (_, leaks) in seen.items() if leaks} == {}
    assert seen["mark"][0] == 404
    assert seen["item api"][0] in (403, 404) and seen["record page"][0] in (403, 404)
    assert seen["audit api"][0] in (403, 404)
    assert (seen["blind api"][0], seen["blind page"][0], seen["marks"][0]) == (200, 200, 200)
    # and the model view itself is served: it is what they answer from
    for name, data in FILES.items():
        response = client.get(f"/media/items/{item.id}/view/{name}")
        assert (response.status_code, b"".join(response.streaming_content)) == (200, data)


def test_after_answering_the_marks_and_the_key_are_theirs(submit, client, api) -> None:
    # given a reviewer who answered the item blind
    reviewer = UserFactory(username="rev1", roles=[REVIEWER])
    item = submit()
    mark = item.marks.get()
    review_start(item=item, reviewer=reviewer, blind_answer="yes")
    rest = api(reviewer)

    # then the marks, the mark ids and the key are visible, as before this change
    assert [m["id"] for m in rest.get(f"/api/scenes/{item.scene_id}/marks/").json()["results"]] == [mark.id]
    assert rest.get(f"/api/marks/{mark.id}/").json()["geometry"] == mark.geometry
    body = rest.get(f"/api/review/items/{item.id}/").json()
    assert (body["mark_ids"], body["review"]["answer_key"]) == ([mark.id], "yes")
    client.force_login(reviewer)
    assert f"#{mark.id}" in client.get(f"/review/items/{item.id}/").content.decode()  # the anchor choices


def test_a_new_revision_is_blind_again_and_a_shared_mark_stays_hidden(submit, api, annotator) -> None:
    # given a reviewer who answered an approved item, and a second item in their queue that
    # shares its mark
    reviewer = UserFactory(username="rev1", roles=[REVIEWER])
    second = UserFactory(username="rev2", roles=[REVIEWER])
    first = submit()
    vote(first, reviewer, "yes", "approve")
    vote(first, second, "yes", "approve")
    mark = first.marks.get()
    from annotator.compiling import lifecycle
    from annotator.compiling.services import item_compile

    other = item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id], seed=7)
    lifecycle.item_submit(item=other, actor=annotator)

    # then the shared mark is hidden until the second item is answered too
    rest = api(reviewer)
    assert rest.get(f"/api/marks/{mark.id}/").status_code == 404
    review_start(item=other, reviewer=reviewer, blind_answer="yes")
    assert rest.get(f"/api/marks/{mark.id}/").status_code == 200


def test_the_marks_list_queries_do_not_grow_with_blind_items(submit, api, annotator) -> None:
    reviewer = UserFactory(username="rev1", roles=[REVIEWER])
    UserFactory(username="rev2", roles=[REVIEWER])
    first = submit()
    scene = first.scene
    rest = api(reviewer)

    def count() -> int:
        url = f"/api/scenes/{scene.id}/marks/"
        rest.get(url)
        with CaptureQueriesContext(connection) as ctx:
            assert rest.get(url).status_code == 200
        return len(ctx.captured_queries)

    few = count()
    from annotator.compiling import lifecycle
    from annotator.compiling.services import item_compile

    for n in range(4):
        mark = MarkFactory(author=annotator, scene=scene, facts={"visible": bool(n % 2)})
        item = item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id])
        lifecycle.item_submit(item=item, actor=annotator)
        if n < 2:
            review_start(item=item, reviewer=reviewer, blind_answer="yes")
    assert count() == few
    assert len(rest.get(f"/api/scenes/{scene.id}/marks/").json()["results"]) == 2  # the two answered


def test_the_adjudicator_sees_the_model_view_and_its_queue_at_home(item, reviewer, second_reviewer, client) -> None:
    # given an item in adjudication with a rendered, lettered model view
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    _rendered(item)
    judge = UserFactory(username="judge", roles=[ADJUDICATOR])
    client.force_login(judge)

    # then every model-view file and the segment are served to the adjudicator
    for name, data in FILES.items():
        response = client.get(f"/media/items/{item.id}/view/{name}")
        assert (response.status_code, b"".join(response.streaming_content)) == (200, data)
    # and their home lists the adjudication queue instead of "no role"
    home = client.get("/").content.decode()
    assert "no role yet" not in home
    assert f'href="/review/adjudication/{item.id}/"' in home and item.question[:40] in home


def test_model_view_files_of_items_not_in_adjudication_stay_hidden_from_adjudicators(submit, client) -> None:
    item = submit()  # in review, not disputed
    _rendered(item)
    client.force_login(UserFactory(username="judge", roles=[ADJUDICATOR]))
    assert client.get(f"/media/items/{item.id}/view/view.jpg").status_code == 404


def test_an_admin_who_is_not_reviewing_reads_everything(item, api) -> None:
    admin = AdminFactory(username="ada")
    mark = item.marks.get()
    assert api(admin).get(f"/api/marks/{mark.id}/").status_code == 200
    assert api(admin).get(f"/api/items/{item.id}/").json()["answer"] == "yes"


def test_an_admin_reviewing_an_item_reads_no_review_of_it_before_answering(submit, api) -> None:
    # given an item reviewed by rev2 and assigned, unanswered, to a reviewer who is also an admin
    both = UserFactory(username="rev1", roles=[REVIEWER, "admin"])
    second = UserFactory(username="rev2", roles=[REVIEWER])
    item = submit()
    vote(item, second, "yes", "approve", anchor_mark_id=item.marks.get().id)
    # then the admins' list of reviews leaves the item out until they answer it
    assert api(both).get(f"/api/reviews/?item={item.id}").json()["results"] == []
    review_start(item=item, reviewer=both, blind_answer="yes")
    assert [r["reviewer"] for r in api(both).get(f"/api/reviews/?item={item.id}").json()["results"]] == [
        second.id,
        both.id,
    ]
