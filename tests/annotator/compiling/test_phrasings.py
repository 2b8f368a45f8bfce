"""Phrasings admins curate: seeded from the templates, added and disabled in the admin, chosen by
the seed among the enabled ones, recorded on each item (text and id)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from annotator.compiling.phrasings import builtin_phrasings, phrasing_check
from annotator.compiling.qa import get_template
from annotator.compiling.services import item_compile
from annotator.models import Item, Phrasing
from tests.factories import MarkFactory, SceneFactory

pytestmark = pytest.mark.django_db
TV = Item.Task.TARGET_VISIBILITY
TG = Item.Task.TEMPORAL_GROUNDING


@pytest.fixture
def region(annotator: Any) -> Any:
    scene = SceneFactory(annotators=[annotator])
    return MarkFactory(scene=scene, author=annotator, label="water tower", facts={"visible": True})


def _compile_many(annotator: Any, mark: Any, task: str, n: int = 40) -> list[Item]:
    return [item_compile(user=annotator, task=task, mark_ids=[mark.id], seed=s) for s in range(n)]


def test_the_migration_seeds_every_built_in_phrasing_in_template_order() -> None:
    expected = sorted(builtin_phrasings())
    rows = Phrasing.objects.filter(builtin=True)
    assert sorted((r.task, r.polarity, r.builtin_index, r.text) for r in rows) == expected
    assert len(expected) >= 12 * 10 and all(r.enabled for r in rows)


def test_items_record_the_phrasing_they_used(annotator: Any, region: Any) -> None:
    item = item_compile(user=annotator, task=TG, mark_ids=[region.id], seed=7)
    row = Phrasing.objects.get(id=item.provenance["phrasing_id"])
    assert (row.task, row.builtin_index) == (TG, item.provenance["phrasing"])
    assert item.provenance["phrasing_text"] == row.text
    assert (
        item.question == row.text.format(region="water tower")[:1].upper() + row.text.format(region="water tower")[1:]
    )


def test_a_disabled_phrasing_is_never_chosen(annotator: Any, region: Any) -> None:
    # given all but two of the task's phrasings disabled
    keep = list(Phrasing.objects.filter(task=TG).order_by("builtin_index")[:2])
    Phrasing.objects.filter(task=TG).exclude(id__in=[p.id for p in keep]).update(enabled=False)
    # when items are compiled with many seeds / then only those two are used
    used = {it.provenance["phrasing_id"] for it in _compile_many(annotator, region, TG)}
    assert used == {p.id for p in keep}


def test_an_added_phrasing_is_chosen_and_recorded(annotator: Any, region: Any) -> None:
    # given an admin's own phrasing beside one built-in
    Phrasing.objects.filter(task=TG).exclude(builtin_index=0).update(enabled=False)
    mine = Phrasing.objects.create(task=TG, text="How many seconds pass before the {region} shows up?")
    # when items are compiled / then some ask it, recorded with its id and no built-in index
    items = [it for it in _compile_many(annotator, region, TG) if it.provenance["phrasing_id"] == mine.id]
    assert items and items[0].question == "How many seconds pass before the water tower shows up?"
    assert items[0].provenance["phrasing"] is None and items[0].provenance["phrasing_text"] == mine.text


def test_yes_no_tasks_choose_each_polarity_from_its_own_phrasings(annotator: Any, region: Any) -> None:
    Phrasing.objects.filter(task=TV, polarity="negative").exclude(builtin_index=3).update(enabled=False)
    items = _compile_many(annotator, region, TV, 10)
    negative = Phrasing.objects.get(task=TV, polarity="negative", builtin_index=3)
    assert {it.provenance["alternate"]["phrasing_id"] for it in items} == {negative.id}


def test_with_nothing_enabled_or_no_table_the_templates_use_their_own(annotator: Any, region: Any) -> None:
    Phrasing.objects.filter(task=TG).update(enabled=False)
    item = item_compile(user=annotator, task=TG, mark_ids=[region.id], seed=7)
    assert item.provenance["phrasing_id"] is None
    assert item.provenance["phrasing_text"] == get_template(TG).phrasings[item.provenance["phrasing"]]
    Phrasing.objects.all().delete()
    again = item_compile(user=annotator, task=TG, mark_ids=[region.id], seed=7)
    assert (again.question, again.provenance["phrasing"]) == (item.question, item.provenance["phrasing"])


@pytest.mark.parametrize(
    ("task", "polarity", "text", "field"),
    [
        (TG, "positive", "When does it first appear?", "text"),  # the region is never named
        (TG, "positive", "When does the {regoin} first appear?", "text"),
        (TG, "positive", "When does the {region first appear?", "text"),
        (TG, "negative", "Is the {region} never seen?", "polarity"),  # not a yes/no task
        (TG, "positive", "When does the {region:>20000000} first appear?", "text"),  # a 20 MB question
        (TG, "positive", "When does the {region!r} first appear?", "text"),
        (TG, "positive", "When does the {region.__class__} first appear?", "text"),
        (TG, "positive", "When does the {region[0]} first appear?", "text"),
    ],
)
def test_a_phrasing_that_would_not_name_the_marks_is_refused(task: str, polarity: str, text: str, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        phrasing_check(task=task, polarity=polarity, text=text)
    assert field in info.value.message_dict


def test_admins_add_and_disable_phrasings_in_the_admin(admin_client: Any) -> None:
    # when an admin adds a phrasing with a misspelt placeholder / then the form says which to use
    url = "/django-admin/annotator/phrasing/add/"
    bad = {"task": TG, "polarity": "positive", "text": "When is the {regoin} first seen?", "enabled": "on"}
    response = admin_client.post(url, bad)
    assert response.status_code == 200 and "use exactly these placeholders" in response.content.decode()
    # a correct one is saved
    good = {**bad, "text": "At which second is the {region} first seen?"}
    assert admin_client.post(url, good).status_code == 302
    added = Phrasing.objects.get(text=good["text"])
    assert not added.builtin and added.enabled
    # a built-in one can be disabled but its text stays as the template has it
    builtin = Phrasing.objects.filter(task=TG, builtin=True).first()
    assert builtin is not None
    page = admin_client.get(f"/django-admin/annotator/phrasing/{builtin.id}/change/").content.decode()
    assert 'name="text"' not in page and 'name="enabled"' in page


def test_a_stored_phrasing_with_a_format_spec_is_never_expanded(annotator: Any, region: Any) -> None:
    # Given a row written past the form (an old row, the shell): a width spec would pad the question
    Phrasing.objects.filter(task=TG).update(enabled=False)
    Phrasing.objects.create(task=TG, text="When does the {region:>200000} first appear?", enabled=True)

    # When compiling picks it / then the compile is refused with the sentence, nothing is padded
    with pytest.raises(ValidationError, match="plain name"):
        item_compile(user=annotator, task=TG, mark_ids=[region.id], seed=1)
    assert not Item.objects.filter(task=TG).exists()
