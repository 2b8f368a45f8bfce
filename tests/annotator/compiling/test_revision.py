"""A rejection leads to a real revision: copy on write of a mark an approved item shares, the
revision compiled from the copy, an unchanged resubmission refused with what to change, a draft
revision compiled again in place, and withdrawal of a rejected item for good."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile, item_recompile, item_revise, item_withdraw
from annotator.exceptions import Conflict
from annotator.marking.services import mark_update
from annotator.models import Item, Mark
from review.reviewing.selectors import review_queue
from tests.factories import AnnotatorFactory, MarkFactory, ReviewerFactory

pytestmark = pytest.mark.django_db

S = Item.State
TV = Item.Task.TARGET_VISIBILITY


def _approved_and_rejected(annotator) -> tuple[Mark, Item, Item]:  # type: ignore[no-untyped-def]
    """A region (visible: yes) that an approved item and a rejected item were both built from."""
    mark = MarkFactory(author=annotator, facts={"visible": True})
    approved = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=1)
    rejected = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=2)
    for item in (approved, rejected):
        lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_approve(item=approved, actor=None, reason="test")
    lifecycle.item_reject(item=rejected, actor=None, reason="the region is never seen")
    return Mark.objects.get(id=mark.id), Item.objects.get(id=approved.id), Item.objects.get(id=rejected.id)


def _fresh(item: Item) -> Item:
    return Item.objects.get(id=item.id)


def test_editing_a_shared_locked_mark_writes_a_copy_for_the_rejected_item(annotator) -> None:
    mark, approved, rejected = _approved_and_rejected(annotator)
    assert mark.locked

    # when the author sets the fact the reviewers disputed
    copy = mark_update(mark=mark, version=mark.version, changes={"facts": {"visible": False}})

    # then a copy took the edit and the rejected item moved to it (stale until revised) ...
    assert copy.id != mark.id and copy.copied_from_id == mark.id
    assert (copy.facts, copy.locked, copy.version) == ({"visible": False}, False, 1)
    assert list(_fresh(rejected).marks.values_list("id", flat=True)) == [copy.id]
    assert _fresh(rejected).stale
    # ... while the approved item keeps the original, unchanged and locked
    original = Mark.objects.get(id=mark.id)
    assert (original.facts, original.version, original.locked) == ({"visible": True}, 1, True)
    assert list(_fresh(approved).marks.values_list("id", flat=True)) == [mark.id]

    # when the author revises and submits / then revision 2 reads the copy and has the new key
    revised = item_revise(user=annotator, item_id=rejected.id)
    assert (revised.revision, revised.answer, revised.stale) == (2, "no", False)
    assert revised.provenance["marks"][0]["id"] == copy.id
    lifecycle.item_submit(item=revised, actor=annotator)
    assert _fresh(rejected).state == S.IN_REVIEW and Mark.objects.get(id=copy.id).locked
    assert (_fresh(approved).state, _fresh(approved).answer) == (S.APPROVED, "yes")


def test_a_locked_mark_no_open_item_uses_is_still_refused(annotator) -> None:
    mark, _, rejected = _approved_and_rejected(annotator)
    lifecycle.item_withdraw(item=rejected, actor=annotator, reason="gave up")
    with pytest.raises(Conflict, match="cannot change now"):
        mark_update(mark=Mark.objects.get(id=mark.id), version=1, changes={"facts": {"visible": False}})
    assert Mark.objects.count() == 1


def test_an_unchanged_resubmission_is_refused_with_what_to_change(annotator) -> None:
    _, _, rejected = _approved_and_rejected(annotator)
    revised = item_revise(user=annotator, item_id=rejected.id)
    with pytest.raises(Conflict) as refused:
        lifecycle.item_submit(item=revised, actor=annotator)
    assert str(refused.value) == lifecycle.UNCHANGED_MESSAGE
    assert "same marks, facts, question and key" in str(refused.value) and "withdraw" in str(refused.value)
    assert _fresh(rejected).state == S.DRAFT


def test_a_draft_revision_is_compiled_again_in_place_after_an_edit(annotator) -> None:
    # given a revision drafted unchanged, then the shared mark edited (copied on write)
    mark, _, rejected = _approved_and_rejected(annotator)
    revised = item_revise(user=annotator, item_id=rejected.id)
    copy = mark_update(mark=mark, version=1, changes={"facts": {"visible": False}})
    assert _fresh(revised).stale

    # when it is compiled again / then it is the same item and revision, fresh, with the new key
    again = item_recompile(user=annotator, item_id=revised.id)
    assert (again.id, again.revision, again.state, again.stale, again.answer) == (rejected.id, 2, S.DRAFT, False, "no")
    assert again.provenance[lifecycle.REJECTED_FINGERPRINT] == revised.provenance[lifecycle.REJECTED_FINGERPRINT]
    assert again.provenance["marks"][0]["id"] == copy.id
    lifecycle.item_submit(item=again, actor=annotator)
    assert _fresh(rejected).state == S.IN_REVIEW


def test_a_rejected_item_is_withdrawn_for_good(annotator) -> None:
    reviewer = ReviewerFactory(username="rev1")
    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_reject(item=item, actor=None, reason="test")

    with pytest.raises(PermissionDenied):
        item_withdraw(user=AnnotatorFactory(username="other"), item_id=item.id)
    withdrawn = item_withdraw(user=annotator, item_id=item.id, reason="the region is not in the video")
    assert (withdrawn.state, Mark.objects.get(id=mark.id).locked) == (S.WITHDRAWN, False)
    # it cannot come back: not revised, not submitted, not withdrawn twice, in no queue
    with pytest.raises(Conflict):
        item_revise(user=annotator, item_id=item.id)
    with pytest.raises(Conflict):
        lifecycle.item_submit(item=withdrawn, actor=annotator)
    with pytest.raises(Conflict):
        item_withdraw(user=annotator, item_id=item.id)
    assert list(review_queue(reviewer=reviewer)) == []


def test_only_rejected_items_and_their_draft_revisions_are_withdrawn(annotator) -> None:
    mark = MarkFactory(author=annotator)
    draft = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    with pytest.raises(Conflict, match="only rejected items and their draft revisions can be withdrawn"):
        item_withdraw(user=annotator, item_id=draft.id)
    # a revision drafted after a rejection, refused as unchanged, can be given up
    _, _, rejected = _approved_and_rejected(annotator)
    revised = item_revise(user=annotator, item_id=rejected.id)
    assert item_withdraw(user=annotator, item_id=revised.id).state == S.WITHDRAWN


def test_a_relation_to_the_copied_mark_follows_the_copy(annotator) -> None:
    # given an occlusion item (regions A, B; A states it hides B) rejected, and B shared with an
    # approved item, so B is locked while A is not
    a = MarkFactory(author=annotator, label="building")
    b = MarkFactory(
        author=annotator,
        scene=a.scene,
        label="road",
        geometry={"type": "Polygon", "coordinates": [[[100, 50], [150, 50], [150, 90], [100, 90]]]},
    )
    Mark.objects.filter(id=a.id).update(facts={"visible": True, "occlusion": [{"other": b.id, "relation": "hides"}]})
    approved = item_compile(user=annotator, task=TV, mark_ids=[b.id])
    lifecycle.item_submit(item=approved, actor=annotator)
    lifecycle.item_approve(item=approved, actor=None, reason="test")
    rejected = item_compile(user=annotator, task=Item.Task.OCCLUSION_ATTRIBUTION, mark_ids=[a.id, b.id])
    lifecycle.item_submit(item=rejected, actor=annotator)
    lifecycle.item_reject(item=rejected, actor=None, reason="the road is the wrong one")

    # when the author fixes B (copied on write)
    b = Mark.objects.select_related("satellite_image").get(id=b.id)
    copy = mark_update(mark=b, version=b.version, changes={"label": "lane"})

    # then A's relation names the copy, and the revision still reads it
    assert Mark.objects.get(id=a.id).facts["occlusion"] == [{"other": copy.id, "relation": "hides"}]
    revised = item_revise(user=annotator, item_id=rejected.id)
    assert revised.answer == "the building hides part of the lane"
    assert Mark.objects.get(id=b.id).label == "road"  # the approved item's region is as it was
