"""What each user may see, as queryset filters. Selectors of every stage start from these, so a
page and an API that list the same thing show the same rows; what is out of scope answers 404.

Two layers: a user sees only the projects they are a member of (superusers see every project),
and inside them what their role and assignments allow. Scenes carry the project; marks, items,
reviews and assignments reach it through their scene, releases carry their own."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db.models import Exists, Q, QuerySet
from django.http import Http404

from annotator.access.roles import ADJUDICATOR, ADMIN, ANNOTATOR, REVIEWER, user_roles
from annotator.models import (
    DEFAULT_PROJECT_SLUG,
    Assignment,
    Item,
    Mark,
    Project,
    ProjectMembership,
    Scene,
    project_default_id,
)

# Reviewers (and adjudicators) see what has been submitted, whatever became of it since.
SUBMITTED_STATES = (
    Item.State.IN_REVIEW,
    Item.State.IN_ADJUDICATION,
    Item.State.APPROVED,
    Item.State.REJECTED,
    Item.State.WITHDRAWN,
)
_JUDGES = {REVIEWER, ADJUDICATOR}

# Blind review: until a reviewer has answered an item (their own answer on its current revision),
# they see its model view and nothing that names or locates the key: not its marks (geometry,
# times, facts, ids), not the item with its key, provenance or record. Which items a user still has
# to answer is review's to know (its assignments and reviews), and annotator never imports review,
# so review registers a source here (ReviewConfig.ready); the rule of what blindness hides is this
# module's, and every selector and page reads it through the functions below.
BlindSource = Callable[[Any], QuerySet[Any]]
_blind_sources: list[BlindSource] = []


def blind_source_register(source: BlindSource) -> None:
    """`source(user)` gives the ids (a values("...") queryset) of the items `user` must still
    answer blind. Registering the same function again changes nothing."""
    if source not in _blind_sources:
        _blind_sources.append(source)


def blind_item_ids(*, user: Any) -> QuerySet[Any] | None:
    """The items `user` has not answered yet, as a subquery of ids; None for users who review
    nothing (no query, no filter)."""
    if REVIEWER not in user_roles(user) or not _blind_sources:
        return None
    if len(_blind_sources) == 1:
        return _blind_sources[0](user)
    either = Q(pk__in=[])
    for source in _blind_sources:
        either |= Q(id__in=source(user))
    return Item.objects.filter(either).values("id")


# Which submitted items a reviewer or adjudicator may see at all: those they were assigned or
# decided (review's to know, registered like the blind source). Without a source (annotator used
# alone) judges see every submitted item.
_judged_sources: list[BlindSource] = []


def judged_source_register(source: BlindSource) -> None:
    """`source(user)` gives the ids of the items `user` reviews or adjudicates (any revision)."""
    if source not in _judged_sources:
        _judged_sources.append(source)


def _judged(*, user: Any, field: str = "id") -> Q:
    """Items (through `field`, e.g. "items__id") a judge may see: assigned or decided by them, and
    for adjudicators every item waiting in adjudication."""
    roles = user_roles(user)
    if not roles & _JUDGES:
        return Q(pk__in=[])
    prefix = field.removesuffix("id")
    if not _judged_sources:
        return Q(**{f"{prefix}state__in": SUBMITTED_STATES})
    visible = Q(pk__in=[])
    for source in _judged_sources:
        visible |= Q(**{f"{field}__in": source(user)})
    if ADJUDICATOR in roles:
        visible |= Q(**{f"{prefix}state": Item.State.IN_ADJUDICATION})
    return visible & Q(**{f"{prefix}state__in": SUBMITTED_STATES})


def member_project_ids(*, user: Any) -> QuerySet[Any] | None:
    """The projects `user` is a member of, as a subquery of ids; None for superusers (every
    project: no filter, no query)."""
    if getattr(user, "is_superuser", False):
        return None
    return ProjectMembership.objects.filter(user_id=user.pk).values("project_id")


def in_member_projects(*, user: Any, qs: QuerySet[Any], path: str) -> QuerySet[Any]:
    """`qs` narrowed to rows whose project (reached through `path`, e.g. "scene__project" for
    items, "project" for scenes and releases) the user is a member of."""
    member = member_project_ids(user=user)
    return qs if member is None else qs.filter(**{f"{path}_id__in": member})


def item_in_projects_get(*, user: Any, item_id: int) -> Item:
    """An item of one of the user's projects, whatever its state (admin actions: gold, reviewers);
    404 for the rest."""
    item = in_member_projects(user=user, qs=Item.objects.all(), path="scene__project").filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item


def projects_visible(*, user: Any, qs: QuerySet[Project] | None = None) -> QuerySet[Project]:
    base = Project.objects.all() if qs is None else qs
    member = member_project_ids(user=user)
    return base if member is None else base.filter(id__in=member)


def project_by_slug(*, user: Any, slug: str) -> Project:
    """A project of the user's by slug; a field error on `project` for any other (made on first
    use for the default project, like the model's default)."""
    if slug == DEFAULT_PROJECT_SLUG:
        project_default_id()
    project = projects_visible(user=user).filter(slug=slug).first()
    if project is None:
        raise ValidationError({"project": f"you are not a member of a project {slug!r}"})
    return project


def project_get_visible(*, user: Any, project_id: int, qs: QuerySet[Project] | None = None) -> Project:
    project = projects_visible(user=user, qs=qs).filter(id=project_id).first()
    if project is None:
        raise Http404("no such project")
    return project


# Answers about who may see an image are cached per user (a map asks per tile); the cache key
# carries the user's access version, which changes whenever an assignment of theirs does, so losing
# a scene takes effect at the next tile, not a minute later.
def access_version(*, user_id: Any) -> int:
    return int(cache.get(f"skymark:access-version:{user_id}") or 0)


def access_changed(*, user_id: Any) -> None:
    # A fresh token rather than an increment: no read-modify-write to race, and nothing to do when
    # the cache is unreachable (its cached answers are unreachable too).
    cache.set(f"skymark:access-version:{user_id}", time.time_ns(), timeout=None)


def _without_blind_marks(*, user: Any, qs: QuerySet[Mark]) -> QuerySet[Mark]:
    """A mark of an item the user must answer blind is hidden whichever other item uses it too:
    its geometry would locate the key all the same."""
    blind = blind_item_ids(user=user)
    if blind is None:
        return qs
    return qs.exclude(id__in=Mark.objects.filter(items__in=blind).values("id"))


def _without_blind_items(*, user: Any, qs: QuerySet[Item]) -> QuerySet[Item]:
    blind = blind_item_ids(user=user)
    return qs if blind is None else qs.exclude(id__in=blind)


def item_is_blind(*, user: Any, item_id: int) -> bool:
    """Whether `user` must still answer this item blind (one query; none for non-reviewers)."""
    blind = blind_item_ids(user=user)
    return blind is not None and Item.objects.filter(id=item_id, id__in=blind).exists()


def scenes_visible(*, user: Any, qs: QuerySet[Scene]) -> QuerySet[Scene]:
    """Admins see every scene, annotators their assignments, judges the scenes of items they judge."""
    roles = user_roles(user)
    qs = in_member_projects(user=user, qs=qs, path="project")
    if ADMIN in roles:
        return qs
    visible = Q(pk__in=[])
    if ANNOTATOR in roles:
        visible |= Q(assignments__annotator=user)
    if roles & _JUDGES:
        visible |= _judged(user=user, field="items__id")
    return qs.filter(visible).distinct()


def sees_own_work_only(*, user: Any) -> bool:
    """A user whose one role is annotator: by the rules below they see the scenes assigned to them
    in their projects and, of marks and items, their own alone (no blind rule applies). The
    workspace's marks read takes a hand-written path for them (annotator.hotpath); a change to what
    such a user sees changes that path too (tests/annotator/hotpath/test_init.py holds them together)."""
    return user_roles(user) == {ANNOTATOR}


def marks_visible(*, user: Any, qs: QuerySet[Mark]) -> QuerySet[Mark]:
    """Admins see every mark; annotators their own; judges the marks of the items they judge, except
    those of items they must still answer blind (whatever else their role lets them see)."""
    roles = user_roles(user)
    qs = in_member_projects(user=user, qs=qs, path="scene__project")
    if ADMIN in roles:
        return _without_blind_marks(user=user, qs=qs)
    visible = Q(author=user)
    if roles & _JUDGES:
        visible |= Q(id__in=Mark.objects.filter(_judged(user=user, field="items__id")).values("id"))
    return _without_blind_marks(user=user, qs=qs.filter(visible))


def items_visible(*, user: Any, qs: QuerySet[Item]) -> QuerySet[Item]:
    """Admins see every item, annotators their own. Reviewers reach items through their queue
    (review.reviewing.selectors), which hides the key until they have answered; an admin who
    reviews an item does not see it here (key, provenance, record) before answering it either."""
    qs = in_member_projects(user=user, qs=qs, path="scene__project")
    if ADMIN in user_roles(user):
        return _without_blind_items(user=user, qs=qs)
    return qs.filter(author=user)


def item_record_get(*, user: Any, item_id: int, qs: QuerySet[Item] | None = None) -> Item:
    """An item whose record (every revision, its key, reviews, audit trail) the user may read: the
    same rule as items_visible; 404 for the rest."""
    base = Item.objects.all() if qs is None else qs
    item = items_visible(user=user, qs=base).filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item


def item_get_with_view(*, user: Any, item_id: int) -> Item:
    """An item whose model view the user may see: admins any, authors their own, reviewers those
    assigned to them (the view shows no key: it is what the reviewer answers from), adjudicators the
    items in adjudication and those they decided (they decide from it, lettered options included).
    404 otherwise."""
    qs = in_member_projects(
        user=user, qs=Item.objects.select_related("model_view", "scene__video"), path="scene__project"
    )
    roles = user_roles(user)
    if ADMIN not in roles:
        qs = qs.filter(Q(author=user) | _judged(user=user))
    item = qs.filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item


def scene_get_visible(*, user: Any, scene_id: int, qs: QuerySet[Scene] | None = None) -> Scene:
    """A scene the user may see (from `qs`, to choose what comes with it); 404 (not 403) for the
    rest, so ids do not leak."""
    scene = scenes_visible(user=user, qs=Scene.objects.all() if qs is None else qs).filter(id=scene_id).first()
    if scene is None:
        raise Http404("no such scene")
    return scene


def satellite_image_visible(*, user: Any, image_id: int) -> bool:
    return scenes_visible(user=user, qs=Scene.objects.filter(satellite_images=image_id)).exists()


def marks_editable(*, user: Any, qs: QuerySet[Mark]) -> QuerySet[Mark]:
    """Marks the user may change: their own, on a scene still assigned to them. The same rule as
    the IsAuthor and IsAssignedToScene permissions together, as a queryset (no role lookup)."""
    qs = in_member_projects(user=user, qs=qs, path="scene__project")
    return qs.filter(author_id=user.pk, scene__assignments__annotator_id=user.pk)


def _assignments(*, user: Any, scene_id: Any) -> QuerySet[Assignment]:
    """The user's assignment to the scene, in a project they are a member of (an assignment left
    behind by a user who left the project gives nothing)."""
    rows = Assignment.objects.filter(scene_id=scene_id, annotator_id=user.pk)
    return in_member_projects(user=user, qs=rows, path="scene__project")


def scene_assigned(*, user: Any, scene_id: Any) -> Exists:
    """scene_is_assigned as an expression: `scene_id` may be an OuterRef, so a query for rows of a
    scene (the marks an item is compiled from) answers it in the same round trip."""
    return Exists(_assignments(user=user, scene_id=scene_id))


def scene_is_assigned(*, user: Any, scene_id: int) -> bool:
    """Assigned to the user, in a project they are a member of."""
    return _assignments(user=user, scene_id=scene_id).exists()


def may_annotate(*, user: Any, scene: Scene) -> bool:
    """Draw and compile on a scene: an annotator it is assigned to."""
    return ANNOTATOR in user_roles(user) and scene_is_assigned(user=user, scene_id=scene.pk)


def may_see_facts(*, user: Any, author_id: int) -> bool:
    """Facts (visible in video?, counts) are answer keys: only their author and admins see them,
    so a reviewer's blind answer stays blind."""
    return user.pk == author_id or ADMIN in user_roles(user)
