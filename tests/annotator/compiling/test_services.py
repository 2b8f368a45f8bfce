"""annotator.compiling.services and the Target Visibility template: compile from marks, submit."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotator.compiling.qa import get_template
from annotator.compiling.qa.base import default_seed
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_update
from annotator.models import Item
from tests.factories import MarkFactory

pytestmark = pytest.mark.django_db

TV = Item.Task.TARGET_VISIBILITY
PHRASINGS = get_template(TV).phrasings
NEGATIVE = get_template(TV).negative_phrasings  # type: ignore[attr-defined]


@pytest.mark.parametrize(("visible", "answer"), [(True, "yes"), (False, "no")])
def test_target_visibility_answer_comes_from_the_fact(annotator, visible: bool, answer: str) -> None:
    # given a region whose fact says whether the drone video shows it
    mark = MarkFactory(author=annotator, label="water tower", facts={"visible": visible})

    # when an item is compiled from it
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=7)

    # then the key follows the fact, the question names the label in one of the phrasings
    row = Item.objects.get(id=item.id)
    assert (row.answer, row.options, row.answer_format, row.state) == (answer, ["yes", "no"], "yes_no", "draft")
    assert row.question == PHRASINGS[row.provenance["phrasing"]].format(region="water tower")
    assert (row.template, row.seed, row.task, row.author, row.scene) == (
        "target_visibility.v2",
        7,
        TV,
        annotator,
        mark.scene,
    )
    assert list(row.marks.all()) == [mark]
    # and the provenance snapshots the mark as it was
    assert row.provenance["marks"][0]["id"] == mark.id
    assert row.provenance["marks"][0]["version"] == 1
    assert row.provenance["marks"][0]["facts"] == {"visible": visible}
    assert row.provenance["template"] == "target_visibility.v2" and row.provenance["seed"] == 7
    assert row.provenance["names"] == {str(mark.id): "water tower"}
    # with the same question asked the other way round, for balancing a release's yes/no keys
    other = row.provenance["alternate"]
    assert (other["polarity"], other["answer"]) == ("negative", "no" if visible else "yes")
    assert other["question"] == NEGATIVE[other["phrasing"]].format(region="water tower")


def test_same_seed_same_item(annotator) -> None:
    # given one mark compiled twice with the same seed
    mark = MarkFactory(author=annotator)
    first = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=12345)
    second = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=12345)

    # then the wording and key are identical
    assert (first.question, first.answer, first.options) == (second.question, second.answer, second.options)


def test_seeds_choose_among_the_phrasings(annotator) -> None:
    # given one mark / when compiled with 40 seeds / then several phrasings are used, each a known one
    mark = MarkFactory(author=annotator, label="pier")
    questions = {item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=s).question for s in range(40)}
    assert len(PHRASINGS) >= 10 and len(NEGATIVE) >= 10
    assert len(questions) >= 5
    assert questions <= {p.format(region="pier") for p in PHRASINGS}


def test_default_seed_is_stable_and_follows_the_mark_version(annotator) -> None:
    # given a mark compiled twice without a seed
    mark = MarkFactory(author=annotator)
    a = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    b = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    assert a.seed == b.seed == default_seed([mark], TV)

    # when the mark changes / then the default seed changes with its version
    mark_update(mark=mark, version=1, changes={"label": "van"})
    mark.refresh_from_db()
    c = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    assert c.seed != a.seed


def _refused(user, mark_ids: list[int], task: str = TV) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    before = Item.objects.count()
    with pytest.raises(ValidationError) as err:
        item_compile(user=user, task=task, mark_ids=mark_ids)
    assert Item.objects.count() == before
    return err.value.message_dict


def test_point_mark_is_refused(annotator) -> None:
    mark = MarkFactory(author=annotator, kind="point", geometry={"type": "Point", "coordinates": [5, 5]})
    assert _refused(annotator, [mark.id]) == {"marks": ["Target Visibility needs one region (polygon); got a point"]}


@pytest.mark.parametrize("facts", [{}, {"visible": "yes"}, {"visible": None}])
def test_missing_visible_fact_is_refused(annotator, facts: dict) -> None:
    mark = MarkFactory(author=annotator, facts=facts)
    assert _refused(annotator, [mark.id]) == {
        "facts.visible": [
            "set the fact 'visible' on the roundabout: yes or no: is it seen anywhere in the drone video?"
        ]
    }


def test_an_ellipse_is_not_a_region(annotator) -> None:
    mark = MarkFactory(
        author=annotator,
        kind="ellipse",
        facts={"visible": False},
        geometry={"type": "Ellipse", "center": [50, 50], "radii": [20, 10], "rotation": 0},
    )
    assert _refused(annotator, [mark.id]) == {"marks": ["Target Visibility needs one region (polygon); got an ellipse"]}


def test_two_marks_are_refused(annotator) -> None:
    mark = MarkFactory(author=annotator)
    other = MarkFactory(author=annotator, scene=mark.scene)
    assert _refused(annotator, [mark.id, other.id]) == {
        "marks": ["Target Visibility needs one region (polygon); got 2 polygons"]
    }


def test_unknown_marks_and_mixed_scenes_are_refused(annotator) -> None:
    mark = MarkFactory(author=annotator)
    elsewhere = MarkFactory(author=annotator)
    unknown = {"mark_ids": ["unknown mark id(s): items are compiled from your own marks"]}
    assert _refused(annotator, [mark.id, 999_999]) == unknown
    assert _refused(annotator, []) == unknown
    assert _refused(annotator, [mark.id, elsewhere.id]) == {"mark_ids": ["all marks of an item come from one scene"]}


def test_unknown_task_is_refused(annotator) -> None:
    mark = MarkFactory(author=annotator)
    assert _refused(annotator, [mark.id], task="made_up") == {"task": ["unknown task 'made_up'"]}


def test_items_are_compiled_from_own_marks_only(annotator, other_annotator) -> None:
    # another's mark is refused as unknown, like a missing one (whether the id exists does not leak)
    mark = MarkFactory(author=other_annotator)
    assert _refused(annotator, [mark.id]) == {
        "mark_ids": ["unknown mark id(s): items are compiled from your own marks"]
    }
    assert Item.objects.count() == 0


def test_marks_on_a_scene_no_longer_assigned_are_refused(annotator) -> None:
    mark = MarkFactory(author=annotator)
    mark.scene.assignments.all().delete()
    with pytest.raises(PermissionDenied, match="no longer assigned"):
        item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    assert Item.objects.count() == 0


def test_marks_on_two_images_of_a_scene_make_no_item_and_the_refusal_names_them(annotator, api) -> None:  # type: ignore[no-untyped-def]
    # given a scene with two satellite images and a region on each
    from tests.factories import SatelliteImageFactory, SceneFactory

    rgb, pan = SatelliteImageFactory(original_name="rgb.tif"), SatelliteImageFactory(original_name="pan.tif")
    scene = SceneFactory(satellite_images=[rgb, pan], annotators=[annotator])
    tower = MarkFactory(author=annotator, scene=scene, satellite_image=rgb, label="water tower")
    pond = MarkFactory(author=annotator, scene=scene, satellite_image=pan, label="pond")

    # when an item is compiled from both (Occlusion Attribution takes two regions)
    response = api(annotator).post(
        "/api/items/",
        {"task": Item.Task.OCCLUSION_ATTRIBUTION, "mark_ids": [tower.id, pond.id]},
        format="json",
    )

    # then it is refused on `marks`, naming each mark and the image it is on, and nothing is stored
    assert response.status_code == 400
    assert response.json()["marks"] == [
        "all marks of an item must be drawn on the same satellite image: "
        f"#{tower.id} “water tower” on rgb.tif; #{pond.id} “pond” on pan.tif"
    ]
    assert not Item.objects.exists()
    # and an item of marks on one image says which image it uses, in the item and in the list
    item = item_compile(user=annotator, task=TV, mark_ids=[pond.id])
    assert api(annotator).get(f"/api/items/{item.id}/").json()["satellite_image"] == pan.id
    listed = api(annotator).get(f"/api/items/?scene={scene.id}").json()["results"]
    assert [(it["id"], it["satellite_image"]) for it in listed] == [(item.id, pan.id)]
