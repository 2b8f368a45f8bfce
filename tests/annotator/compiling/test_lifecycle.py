"""annotator.compiling.lifecycle: every item transition, the marks it locks, stale items refused."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile
from annotator.exceptions import Conflict
from annotator.marking.services import mark_delete, mark_update
from annotator.models import Item, Mark
from tests.factories import ItemFactory, MarkFactory

pytestmark = pytest.mark.django_db

S = Item.State
TV = Item.Task.TARGET_VISIBILITY


def _locked(mark: Mark) -> bool:
    return Mark.objects.get(id=mark.id).locked


def _draft(annotator) -> tuple[Item, Mark]:  # type: ignore[no-untyped-def]
    mark = MarkFactory(author=annotator, facts={"visible": True})
    return item_compile(user=annotator, task=TV, mark_ids=[mark.id]), mark


def test_compile_makes_a_fresh_draft_that_locks_nothing(annotator) -> None:
    item, mark = _draft(annotator)
    assert (item.state, item.stale, _locked(mark)) == (S.DRAFT, False, False)
    assert item.provenance["marks"][0]["version"] == 1


def test_submit_moves_a_draft_to_review_and_locks_its_marks(annotator) -> None:
    item, mark = _draft(annotator)
    lifecycle.item_submit(item=item, actor=annotator)
    assert Item.objects.get(id=item.id).state == S.IN_REVIEW
    assert _locked(mark)


def test_approve_keeps_the_marks_locked(annotator) -> None:
    item, mark = _draft(annotator)
    lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_approve(item=item, actor=None, reason="test")
    assert Item.objects.get(id=item.id).state == S.APPROVED
    assert _locked(mark)


def test_reject_unlocks_marks_no_other_item_holds(annotator) -> None:
    # given two items in review sharing one mark
    item, mark = _draft(annotator)
    other = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=3)
    lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_submit(item=other, actor=annotator)

    # when one is rejected / then the mark stays locked by the other
    lifecycle.item_reject(item=item, actor=None, reason="test")
    assert Item.objects.get(id=item.id).state == S.REJECTED
    assert _locked(mark)

    # when the other is rejected too / then the mark is the author's to fix again
    lifecycle.item_reject(item=other, actor=None, reason="test")
    assert not _locked(mark)


def _move(action: str, item: Item, actor) -> Item:  # type: ignore[no-untyped-def]
    """Call the lifecycle's function for `action` with what it needs."""
    if action.startswith("adjudicate_"):
        return lifecycle.item_adjudicate(item=item, approve=action == "adjudicate_approve", actor=actor, reason="test")
    if action == "revise":
        return lifecycle.item_revise(item=item, actor=actor, reason="test", fields={})
    return getattr(lifecycle, f"item_{action}")(item=item, actor=actor, reason="test")


# item_withdraw takes both withdraw edges (a rejected item, a draft revision): "withdraw_revision" has
# no function of its own; its refusals are in test_revision.py.
ILLEGAL = [
    (state, action)
    for action, (source, _, _) in lifecycle.TRANSITIONS.items()
    for state in S.values
    if state != source and action != "withdraw_revision"
]


@pytest.mark.parametrize(("state", "action"), ILLEGAL)
def test_illegal_transitions_are_refused_and_change_nothing(annotator, state: str, action: str) -> None:
    # given an item in a state the action does not start from
    mark = MarkFactory(author=annotator)
    item = ItemFactory(author=annotator, scene=mark.scene, marks=[mark], state=state)
    locked_before = _locked(mark)

    # when it is tried / then it is refused with the rule, and nothing moved or was recorded
    rule = lifecycle.TRANSITIONS[action][2]
    with pytest.raises(Conflict, match=f"the item is {state.replace('_', ' ')}; {rule}"):
        _move(action, item, annotator)
    stored = Item.objects.get(id=item.id)
    assert (stored.state, stored.revision) == (state, 1)
    assert _locked(mark) == locked_before


@pytest.mark.parametrize(
    ("start", "action", "end", "locks"),
    [
        (S.DRAFT, "submit", S.IN_REVIEW, True),
        (S.IN_REVIEW, "approve", S.APPROVED, True),
        (S.IN_REVIEW, "reject", S.REJECTED, False),
        (S.IN_REVIEW, "escalate", S.IN_ADJUDICATION, True),
        (S.IN_ADJUDICATION, "adjudicate_approve", S.APPROVED, True),
        (S.IN_ADJUDICATION, "adjudicate_reject", S.REJECTED, False),
        (S.REJECTED, "revise", S.DRAFT, False),
    ],
)
def test_every_legal_transition_moves_locks_and_is_announced(annotator, start, action, end, locks) -> None:  # type: ignore[no-untyped-def]
    # given an item where the action starts, and a listener on the lifecycle's signal
    mark = MarkFactory(author=annotator)
    item = ItemFactory(author=annotator, scene=mark.scene, marks=[mark], state=start)
    heard: list[dict] = []

    def listen(sender, **kw):  # type: ignore[no-untyped-def]
        heard.append(kw)

    lifecycle.item_transitioned.connect(listen)
    try:
        _move(action, item, annotator)
    finally:
        lifecycle.item_transitioned.disconnect(listen)

    # then it moved along the edge, its mark's lock follows the new state, and one announcement
    # named the move, who made it and why
    stored = Item.objects.get(id=item.id)
    assert stored.state == end
    assert stored.revision == (2 if action == "revise" else 1)
    assert _locked(mark) is locks
    [said] = heard
    assert (said["action"], said["source"], said["target"], said["actor"], said["reason"]) == (
        action, start, end, annotator, "test",
    )  # fmt: skip


def test_an_adjudication_needs_a_reason(annotator) -> None:
    item = ItemFactory(author=annotator, state=S.IN_ADJUDICATION)
    with pytest.raises(ValidationError) as err:
        lifecycle.item_adjudicate(item=item, approve=True, actor=annotator, reason="  ")
    assert list(err.value.message_dict) == ["reason"]
    assert Item.objects.get(id=item.id).state == S.IN_ADJUDICATION


def test_editing_a_mark_makes_its_draft_stale_and_submit_refuses_it(annotator) -> None:
    # given a draft keyed on mark v1
    item, mark = _draft(annotator)

    # when the mark changes to v2
    mark_update(mark=mark, version=1, changes={"facts": {"visible": False}})

    # then the draft is stale and cannot reach review with its old key
    assert Item.objects.get(id=item.id).stale
    with pytest.raises(Conflict, match="compile it again"):
        lifecycle.item_submit(item=item, actor=annotator)
    assert Item.objects.get(id=item.id).state == S.DRAFT
    assert not _locked(mark)

    # and compiling again gives a fresh draft with the new key that can be submitted
    fresh = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    assert (fresh.answer, fresh.stale) == ("no", False)
    lifecycle.item_submit(item=fresh, actor=annotator)
    assert Item.objects.get(id=fresh.id).state == S.IN_REVIEW


def test_a_changed_input_is_refused_even_without_the_flag(annotator) -> None:
    # given a draft whose mark changed what it read (written around the services, e.g. by an
    # import) / then submit compares what the item read with the mark and refuses
    item, mark = _draft(annotator)
    Mark.objects.filter(id=mark.id).update(version=5, facts={"visible": False})
    with pytest.raises(Conflict, match="compile it again"):
        lifecycle.item_submit(item=item, actor=annotator)


def test_a_change_the_item_did_not_read_does_not_hold_it_back(annotator) -> None:
    # given a Target Visibility draft (it reads 'visible') whose mark gained another fact since
    item, mark = _draft(annotator)
    Mark.objects.filter(id=mark.id).update(version=5, facts={"visible": True, "first_seen_s": 1.0})
    # when it is submitted / then it goes: nothing it read changed
    lifecycle.item_submit(item=item, actor=annotator)
    assert Item.objects.get(id=item.id).state == S.IN_REVIEW


def test_approving_a_stale_item_is_refused(annotator) -> None:
    item, _ = _draft(annotator)
    lifecycle.item_submit(item=item, actor=annotator)
    Item.objects.filter(id=item.id).update(stale=True)
    with pytest.raises(Conflict, match="compile it again"):
        lifecycle.item_approve(item=item, actor=None, reason="test")
    assert Item.objects.get(id=item.id).state == S.IN_REVIEW
    # a stale item can still be rejected: that is how it goes back to its author
    lifecycle.item_reject(item=item, actor=None, reason="test")
    assert Item.objects.get(id=item.id).state == S.REJECTED


def test_a_rejected_item_goes_stale_when_its_mark_is_fixed(annotator) -> None:
    item, mark = _draft(annotator)
    lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_reject(item=item, actor=None, reason="test")
    mark_update(mark=mark, version=1, changes={"label": "van"})
    assert Item.objects.get(id=item.id).stale


def test_a_locked_mark_refuses_edit_and_delete(annotator) -> None:
    item, mark = _draft(annotator)
    lifecycle.item_submit(item=item, actor=annotator)
    with pytest.raises(Conflict, match="cannot change now"):
        mark_update(mark=mark, version=1, changes={"label": "van"})
    with pytest.raises(Conflict, match="cannot change now"):
        mark_delete(mark=mark, version=1)
    stored = Mark.objects.get(id=mark.id)
    assert (stored.version, stored.label) == (1, mark.label)


def test_deleting_a_mark_drops_its_drafts_and_makes_rejected_items_stale(annotator) -> None:
    draft, mark = _draft(annotator)
    rejected = item_compile(user=annotator, task=TV, mark_ids=[mark.id], seed=11)
    lifecycle.item_submit(item=rejected, actor=annotator)
    lifecycle.item_reject(item=rejected, actor=None, reason="test")
    mark_delete(mark=mark, version=1)
    assert not Item.objects.filter(id=draft.id).exists()
    assert Item.objects.get(id=rejected.id).stale


def test_submitting_a_draft_whose_mark_was_just_deleted_is_not_found(annotator) -> None:
    # given a draft read by a submit request while another request deletes its mark (the draft goes too)
    from django.http import Http404

    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id])
    mark_delete(mark=Mark.objects.get(id=mark.id), version=mark.version)
    assert not Item.objects.filter(id=item.id).exists()

    # then the submit is a 404 with a sentence, not a server error
    with pytest.raises(Http404, match="this item no longer exists"):
        lifecycle.item_submit(item=item, actor=annotator)
