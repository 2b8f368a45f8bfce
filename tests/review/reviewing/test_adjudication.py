"""review.reviewing.adjudication and revisions: the adjudicator's final word on items reviewers did
not settle, who may give it, and an author's revision of a rejected item reviewed again while the
earlier round stays readable."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotator.access.roles import ADJUDICATOR
from annotator.compiling import lifecycle
from annotator.compiling.services import item_revise
from annotator.exceptions import Conflict
from annotator.marking.services import mark_update
from annotator.models import Item
from review.models import Adjudication, ItemRevision, Review
from review.reviewing.adjudication import item_adjudicate
from review.reviewing.policy import policy_get
from review.reviewing.selectors import adjudication_queue, feedback_for_items, item_rounds
from tests.factories import AnnotatorFactory, ReviewerFactory, UserFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db

S = Item.State


@pytest.fixture
def adjudicator(db):  # type: ignore[no-untyped-def]
    return UserFactory(username="judge", roles=[ADJUDICATOR])


@pytest.fixture
def disputed(item, reviewer, second_reviewer) -> Item:  # type: ignore[no-untyped-def]
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    return Item.objects.get(id=item.id)


def test_the_adjudicator_approves_finally(disputed, adjudicator) -> None:
    assert list(adjudication_queue(user=adjudicator)) == [disputed]
    row = item_adjudicate(
        item=disputed, adjudicator=adjudicator, decision="approve", reason="the region is seen at 1 s"
    )
    assert Item.objects.get(id=disputed.id).state == S.APPROVED
    assert (row.decision, row.revision, row.reason) == ("approve", 1, "the region is seen at 1 s")
    assert list(adjudication_queue(user=adjudicator)) == []


def test_the_adjudicator_rejects_with_reasons_the_author_sees_on_the_mark(disputed, adjudicator) -> None:
    mark = disputed.marks.get()
    item_adjudicate(
        item=disputed,
        adjudicator=adjudicator,
        decision="reject",
        reason="the island is drawn too small",
        reasons=["mark_misplaced"],
        anchor_mark_id=mark.id,
        anchor_time_s=0.5,
    )
    assert Item.objects.get(id=disputed.id).state == S.REJECTED
    final = feedback_for_items(items=[disputed])[0]
    assert (final["by"], final["reasons"], final["comment"], final["anchor_mark"], final["anchor_time_s"]) == (
        "adjudicator",
        ["Mark misplaced"],
        "the island is drawn too small",
        mark.id,
        0.5,
    )


@pytest.mark.parametrize(
    ("decision", "reason", "reasons", "errors"),
    [
        ("approve", "  ", [], {"reason": ["say why: the adjudicator's decision is final"]}),
        ("reject", "wrong", [], {"reasons": ["a rejection needs at least one reason"]}),
        ("approve", "fine", ["ambiguity"], {"reasons": ["an approval carries no rejection reasons"]}),
        ("maybe", "fine", [], {"decision": ["approve or reject"]}),
    ],
)
def test_bad_adjudications_are_refused(disputed, adjudicator, decision, reason, reasons, errors) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError) as err:
        item_adjudicate(item=disputed, adjudicator=adjudicator, decision=decision, reason=reason, reasons=reasons)
    assert err.value.message_dict == errors
    assert Item.objects.get(id=disputed.id).state == S.IN_ADJUDICATION
    assert not Adjudication.objects.exists()


def test_who_may_adjudicate(disputed, annotator, reviewer, admin) -> None:
    # a plain reviewer may not, nor its author, nor an adjudicator who reviewed it
    with pytest.raises(PermissionDenied, match="only adjudicators"):
        item_adjudicate(item=disputed, adjudicator=ReviewerFactory(username="r9"), decision="approve", reason="x")
    annotator.groups.add(*UserFactory(username="j2", roles=[ADJUDICATOR]).groups.all())
    with pytest.raises(PermissionDenied, match="an item you wrote"):
        item_adjudicate(item=disputed, adjudicator=annotator, decision="approve", reason="x")
    reviewer.groups.add(*UserFactory(username="j3", roles=[ADJUDICATOR]).groups.all())
    with pytest.raises(PermissionDenied, match="you reviewed this item"):
        item_adjudicate(item=disputed, adjudicator=reviewer, decision="approve", reason="x")
    assert list(adjudication_queue(user=reviewer)) == []

    # admins may while the policy lets them, and not once it does not
    policy = policy_get()
    policy.admins_adjudicate = False
    policy.save()
    with pytest.raises(PermissionDenied):
        item_adjudicate(item=disputed, adjudicator=admin, decision="approve", reason="x")
    policy.admins_adjudicate = True
    policy.save()
    item_adjudicate(item=disputed, adjudicator=admin, decision="approve", reason="the key holds")
    assert Item.objects.get(id=disputed.id).state == S.APPROVED


def test_only_items_in_adjudication_are_adjudicated_and_only_once(item, disputed, adjudicator) -> None:
    item_adjudicate(item=disputed, adjudicator=adjudicator, decision="approve", reason="ok")
    with pytest.raises(Conflict, match="not in adjudication"):
        item_adjudicate(item=disputed, adjudicator=adjudicator, decision="reject", reason="no", reasons=["ambiguity"])
    assert Adjudication.objects.count() == 1


def test_a_rejected_item_is_revised_reviewed_again_and_its_first_round_stays(
    item, annotator, reviewer, second_reviewer
) -> None:
    # given a first round that rejected the item, and the author fixing the mark
    vote(item, reviewer, "no", "reject", ("evidence_not_visible",))
    vote(item, second_reviewer, "no", "reject", ("evidence_not_visible",))
    mark = item.marks.get()
    mark_update(mark=mark, version=1, changes={"facts": {"visible": False}})
    assert Item.objects.get(id=item.id).stale

    # when the author revises it: the same item, revision 2, compiled from the fixed mark
    revised = item_revise(user=annotator, item_id=item.id)
    assert (revised.id, revised.revision, revised.state, revised.stale, revised.answer) == (
        item.id, 2, S.DRAFT, False, "no",
    )  # fmt: skip
    lifecycle.item_submit(item=revised, actor=annotator)

    # then revision 2 is reviewed on its own (the same reviewers, since there are no others)
    vote(revised, reviewer, "no", "approve")
    vote(revised, second_reviewer, "no", "approve")
    assert Item.objects.get(id=item.id).state == S.APPROVED

    # and both rounds stay readable: snapshots as submitted, and each round's reviews
    snapshots = list(ItemRevision.objects.filter(item=item).values_list("number", "answer"))
    assert snapshots == [(1, "yes"), (2, "no")]
    rounds = item_rounds(item=Item.objects.get(id=item.id))
    assert [r.number for r in rounds] == [2, 1]
    assert [(r.decision, r.blind_answer) for r in rounds[1].reviews] == [("reject", "no"), ("reject", "no")]
    assert [r.decision for r in rounds[0].reviews] == ["approve", "approve"]
    assert Review.objects.filter(item=item).count() == 4


def test_only_the_author_revises_and_only_a_rejected_item(item, annotator) -> None:
    with pytest.raises(Conflict, match="only rejected items can be revised"):
        item_revise(user=annotator, item_id=item.id)
    with pytest.raises(PermissionDenied):
        item_revise(user=AnnotatorFactory(username="other"), item_id=item.id)
    assert Item.objects.get(id=item.id).revision == 1
