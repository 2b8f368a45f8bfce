"""review.reviewing.assignment: who gets which item — the policy's number of reviewers, never the
author, least loaded first, fresh eyes for a revision, admins filling gaps; gold checks mixed in."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotator.compiling.services import item_revise
from annotator.exceptions import Conflict
from annotator.marking.services import mark_update
from annotator.models import Item
from review.models import GoldItem, Review, ReviewAssignment
from review.reviewing.assignment import assignment_add, assignment_remove
from review.reviewing.gold import gold_mark, gold_unmark
from review.reviewing.policy import policy_get
from review.reviewing.selectors import review_queue
from review.reviewing.services import review_decide, review_start
from tests.factories import AnnotatorFactory, ReviewerFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db


def _assigned(item: Item, revision: int | None = None) -> list[str]:
    rows = ReviewAssignment.objects.filter(item=item, revision=revision or item.revision, gold=False)
    return sorted(rows.values_list("reviewer__username", flat=True))


def _queue(reviewer) -> list[int]:  # type: ignore[no-untyped-def]
    return [a.item_id for a in review_queue(reviewer=reviewer)]


def test_submit_assigns_the_policy_number_of_reviewers_least_loaded_first(submit) -> None:
    # given three reviewers, one of whom already has an open item
    for name in ("ra", "rb", "rc"):
        ReviewerFactory(username=name)
    policy_get()  # two per item by default
    first = submit()
    assert _assigned(first) == ["ra", "rb"]  # equal loads: by id

    # when the next items come in / then the least loaded reviewers get them
    assert _assigned(submit()) == ["ra", "rc"]  # rc had none; ra and rb one each, ra first by id
    assert _assigned(submit()) == ["rb", "rc"]  # ra has two now
    loads = {u: ReviewAssignment.objects.filter(reviewer__username=u).count() for u in ("ra", "rb", "rc")}
    assert loads == {"ra": 2, "rb": 2, "rc": 2}


def test_nobody_reviews_their_own_item(submit) -> None:
    # given an annotator who is also a reviewer, and two other reviewers
    both = AnnotatorFactory(username="both")
    both.groups.add(*ReviewerFactory(username="r1").groups.all())
    ReviewerFactory(username="r2")
    item = submit(author=both)
    assert _assigned(item) == ["r1", "r2"]
    assert _queue(both) == []


def test_the_policy_sets_how_many_review_each_item(submit) -> None:
    for name in ("r1", "r2", "r3", "r4"):
        ReviewerFactory(username=name)
    policy = policy_get()
    policy.reviewers_per_item = 3
    policy.save()
    assert len(_assigned(submit())) == 3


def test_a_queue_holds_the_reviewers_own_open_assignments_only(item, reviewer, second_reviewer) -> None:
    outsider = ReviewerFactory(username="rev3")
    assert _queue(reviewer) == [item.id] and _queue(second_reviewer) == [item.id]
    assert _queue(outsider) == []
    # answered but not decided: still in the queue; decided: gone
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    assert _queue(reviewer) == [item.id]
    review_decide(review=review, reviewer=reviewer, decision="approve", reasons=[])
    assert _queue(reviewer) == []


def test_with_too_few_reviewers_an_admin_adds_one_and_the_item_waits_for_them(submit, reviewer, admin) -> None:
    # given a single reviewer: the item gets one of the two the policy asks for
    item = submit()
    assert _assigned(item) == ["rev1"]
    vote(item, reviewer, "yes", "approve")
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW  # one approval is not enough

    # when an admin adds a second reviewer / then the item settles on their decision
    late = ReviewerFactory(username="late")
    assignment_add(item=item, reviewer=late, actor=admin)
    assert ReviewAssignment.objects.get(item=item, reviewer=late).assigned_by == admin
    vote(item, late, "yes", "approve")
    assert Item.objects.get(id=item.id).state == Item.State.APPROVED


def test_assignment_add_refuses_the_author_a_non_reviewer_and_a_repeat(item, annotator, reviewer, admin) -> None:
    with pytest.raises(ValidationError, match="nobody reviews an item they wrote"):
        annotator.groups.add(*ReviewerFactory(username="x").groups.all())
        assignment_add(item=item, reviewer=annotator, actor=admin)
    with pytest.raises(ValidationError, match="choose an active reviewer"):
        assignment_add(item=item, reviewer=AnnotatorFactory(), actor=admin)
    with pytest.raises(Conflict, match="already has this item"):
        assignment_add(item=item, reviewer=reviewer, actor=admin)


def test_an_assignment_is_taken_back_only_before_the_answer(item, reviewer, second_reviewer, admin) -> None:
    review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(Conflict, match="has answered"):
        assignment_remove(assignment_id=ReviewAssignment.objects.get(reviewer=reviewer).id, actor=admin)
    assignment_remove(assignment_id=ReviewAssignment.objects.get(reviewer=second_reviewer).id, actor=admin)
    assert _queue(second_reviewer) == []


def test_a_revision_goes_to_reviewers_who_have_not_seen_the_item(item, annotator, reviewer, second_reviewer) -> None:
    # given a third reviewer and a rejected first round by rev1 and rev2
    ReviewerFactory(username="rev3")
    ReviewerFactory(username="rev4")
    vote(item, reviewer, "no", "reject", ("mark_misplaced",))
    vote(item, second_reviewer, "no", "reject", ("mark_misplaced",))

    # when the author revises and submits / then fresh reviewers get revision 2
    from annotator.compiling.lifecycle import item_submit

    mark = item.marks.get()
    mark_update(mark=mark, version=mark.version, changes={"facts": {"visible": False}})
    item_revise(user=annotator, item_id=item.id)
    item_submit(item=Item.objects.get(id=item.id), actor=annotator)
    assert _assigned(item, 1) == ["rev1", "rev2"]
    assert _assigned(Item.objects.get(id=item.id)) == ["rev3", "rev4"]


def test_gold_items_are_mixed_in_at_the_policy_rate(submit, admin) -> None:
    # given an approved gold item written by someone else, and a policy of one gold in two
    policy = policy_get()
    policy.gold_rate = 0.5
    policy.save()
    r1, r2 = ReviewerFactory(username="g1"), ReviewerFactory(username="g2")
    gold = submit(author=AnnotatorFactory(username="goldsmith"))
    vote(gold, r1, "yes", "approve")
    vote(gold, r2, "yes", "approve")
    gold_mark(item=gold, admin=admin)
    reviewer = ReviewerFactory(username="fresh")

    # when a real item is assigned to the new reviewer (and to one more)
    real = submit()

    # then the new reviewer's queue holds the real item and the gold one, which looks the same
    assert _assigned(real) == ["fresh", "g1"]
    assert _queue(reviewer) == [real.id, gold.id]
    assert ReviewAssignment.objects.get(reviewer=reviewer, item=gold).gold
    # g1 saw the gold item already: never again as a check
    assert not ReviewAssignment.objects.filter(reviewer=r1, item=gold, gold=True).exists()

    # and answering the gold item records a gold review that leaves the item approved
    check = review_start(item=gold, reviewer=reviewer, blind_answer="no")
    review_decide(review=check, reviewer=reviewer, decision="approve", reasons=[])
    assert (check.gold, check.blind_correct) == (True, False)
    assert Item.objects.get(id=gold.id).state == Item.State.APPROVED
    assert _queue(reviewer) == [real.id]


def test_gold_is_for_approved_items_and_unmarking_takes_it_out_of_open_queues(submit, item, admin) -> None:
    with pytest.raises(Conflict, match="only approved items can be gold"):
        gold_mark(item=item, admin=admin)
    policy = policy_get()
    policy.gold_rate = 0.5
    policy.save()
    gold = submit(author=AnnotatorFactory(username="goldsmith"))
    Item.objects.filter(id=gold.id).update(state=Item.State.APPROVED)
    gold_mark(item=gold, admin=admin)
    with pytest.raises(Conflict, match="gold already"):
        gold_mark(item=gold, admin=admin)
    newcomer = ReviewerFactory(username="new")
    submit()
    assert gold.id in _queue(newcomer)
    assert gold_unmark(item=gold, admin=admin) == 1
    assert gold.id not in _queue(newcomer) and not GoldItem.objects.exists()
    assert not Review.objects.filter(gold=True).exists()


def test_the_command_tops_up_items_in_review(submit, admin) -> None:
    import io

    from django.core.management import call_command

    # given an item submitted while there was one reviewer
    ReviewerFactory(username="only")
    item = submit()
    assert _assigned(item) == ["only"]
    # when more reviewers join and the command runs / then the item gets its second reviewer
    ReviewerFactory(username="later")
    out = io.StringIO()
    call_command("assign_reviews", stdout=out)
    assert _assigned(item) == ["later", "only"]
    assert out.getvalue().startswith("1 assignment(s) added")


def _history(*, items: int, author, reviewers, scene) -> None:  # type: ignore[no-untyped-def]
    """`items` items in review, each given to two reviewers of `reviewers`, every other one decided."""
    from django.utils import timezone

    from tests.factories import ItemFactory

    made = [ItemFactory(scene=scene, author=author, state=Item.State.IN_REVIEW) for _ in range(items)]
    ReviewAssignment.objects.bulk_create(
        ReviewAssignment(
            item=row,
            revision=row.revision,
            reviewer=reviewers[(n + k) % len(reviewers)],
            done_at=timezone.now() if n % 2 else None,
        )
        for n, row in enumerate(made)
        for k in (0, 1)
    )


def test_submitting_costs_the_same_queries_however_many_items_were_assigned_before(
    submit, annotator, django_assert_num_queries
) -> None:
    # given three reviewers (no gold, so every submit does the same work) and ten earlier items
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotator.compiling import lifecycle
    from annotator.compiling.services import item_compile
    from annotator.models import Mark
    from tests.factories import MarkFactory

    reviewers = [ReviewerFactory(username=name) for name in ("q1", "q2", "q3")]
    policy = policy_get()
    policy.gold_rate = 0
    policy.save()
    warm = submit()
    _history(items=10, author=warm.author, reviewers=reviewers, scene=warm.scene)

    def draft() -> Item:
        mark = MarkFactory(scene=warm.scene, author=annotator, facts={"visible": True})
        return item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id])

    small = draft()
    with CaptureQueriesContext(connection) as few:
        lifecycle.item_submit(item=small, actor=annotator)

    # when two hundred items more were assigned / then the next submit runs as many queries
    _history(items=190, author=warm.author, reviewers=reviewers, scene=warm.scene)
    assert ReviewAssignment.objects.count() == 2 * (1 + 1 + 200)
    large = draft()
    with django_assert_num_queries(len(few.captured_queries)):
        lifecycle.item_submit(item=large, actor=annotator)
    assert len(_assigned(large)) == 2 and annotator.username not in _assigned(large)
    assert Mark.objects.filter(scene=warm.scene).count() >= 3


def test_ties_on_open_work_go_to_whoever_waited_longest_for_an_item(submit, reviewer, admin) -> None:
    # given three reviewers with no open work, rev1 and rev3 given an item more recently than rev2
    second, third = ReviewerFactory(username="rev2"), ReviewerFactory(username="rev3")
    first = submit()  # rev1 and rev2 (equal, by id)
    assert _assigned(first) == ["rev1", "rev2"]
    later = submit()  # rev3 (no work) and rev1 (one open, given first)
    assert _assigned(later) == ["rev1", "rev3"]
    for item, people in ((first, (reviewer, second)), (later, (reviewer, third))):
        for person in people:
            vote(item, person, "yes", "approve")
    # when the next item comes in, with every queue empty / then rev2, who waited longest, is first
    assert _assigned(submit()) == ["rev2", "rev3"]
