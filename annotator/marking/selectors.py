"""Reads of marks, scoped to the user asking (annotator.access.scopes)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet, Subquery, TextField
from django.http import Http404

from annotator import hotpath
from annotator.access.scopes import marks_editable, marks_visible, scene_get_visible, sees_own_work_only
from annotator.compiling.lifecycle import OPEN_STATES, movable_items_exist
from annotator.models import Item, Mark, SatelliteImage, Scene


def _with_copy_on_edit(*, user: Any, qs: QuerySet[Mark]) -> QuerySet[Mark]:
    """Each mark with `copy_on_edit`: locked, but the user's own drafts or rejected items use it,
    so an edit goes to a copy for them (lifecycle.items_move_to_copy) instead of being refused."""
    return qs.annotate(copy_on_edit=movable_items_exist(author_id=user.pk))


def marks_for_scene(*, user: Any, scene: Scene) -> QuerySet[Mark]:
    """The scene's marks the user may see, each with its image's georeference (`image_georef`),
    the one thing of the image the answer needs. Joined as a whole, every mark carried and decoded
    its image's valid-data outline and control points and built the image: a quarter of a scene
    read under the profiler (bench/README.md)."""
    georef = SatelliteImage.objects.filter(id=OuterRef("satellite_image_id")).values("georef")
    # As its JSON text: the marks of one image share it, and the answer decodes it once per image
    # (marking.serializers), not once per mark (decoding JSON was 14 % of a 48-mark read).
    qs = Mark.objects.filter(scene=scene).annotate(image_georef=Subquery(georef, output_field=TextField()))
    return _with_copy_on_edit(user=user, qs=marks_visible(user=user, qs=qs))


def scene_marks(*, user: Any, scene_id: int) -> QuerySet[Mark] | hotpath.OwnMarks:
    """The marks of a scene the user may see, as marks_for_scene lists them; 404 when the scene is
    not theirs to see. An annotator's own marks, the workspace's most frequent read, come through
    annotator.hotpath (the same rows; building the two ORM queries was half of that read)."""
    if sees_own_work_only(user=user):
        own = hotpath.own_marks_of_scene(user=user, scene_id=scene_id)
        if own is None:
            raise Http404("no such scene")
        return own
    return marks_for_scene(user=user, scene=scene_get_visible(user=user, scene_id=scene_id))


def mark_get(*, user: Any, mark_id: int) -> Mark:
    """One mark the user may see, with its image (editing validates against its size and the
    answer carries WGS84 coordinates); 404 for the rest."""
    qs = _with_copy_on_edit(user=user, qs=Mark.objects.select_related("satellite_image"))
    mark = marks_visible(user=user, qs=qs).filter(id=mark_id).first()
    if mark is None:
        raise Http404("no such mark")
    return mark


def mark_for_edit(*, user: Any, mark_id: int) -> Mark | None:
    """The mark an autosave is about to change, when the user may change it (else None: the API
    then finds out whether to answer 404 or 403). One query brings the mark, its image (edits are
    validated against its size, the answer carries WGS84) and whether any open item was compiled
    from it (only then does the save mark items stale).

    Autosave runs this on every save. Under the profiler, reading the mark through the visible
    scope, then the user's roles, then the assignment took three queries and about 40 % of a save's
    server time; this one query answers all three for the author, who is the only one who saves."""
    open_items = Item.objects.filter(marks=OuterRef("pk"), state__in=OPEN_STATES, stale=False)
    qs = marks_editable(user=user, qs=Mark.objects.select_related("satellite_image"))
    return qs.annotate(has_open_items=Exists(open_items)).filter(id=mark_id).first()


def scene_to_draw_on(*, user: Any, scene_id: int, image_id: int | None = None) -> Scene | None:
    """The scene a new mark goes on, when the user may draw there (assigned to them, in a project
    they are a member of), with its video (times are checked against its length) and its project
    (the label set) in the same query; None otherwise (the API then finds out whether to answer
    404 or 403). The caller has checked the annotator role, and an annotator sees the scenes
    assigned to them, so this one query also answers that the scene is visible.

    Every mark POST runs this. Reading the scene through the visible scope, then the assignment,
    then the video, then the label set took four queries and about a third of a mark POST's server
    CPU under the 8-client unit load; as one ORM query it was still 27 % of a mark POST, mostly
    building the query, so it is written by hand (annotator.hotpath, where its ORM form is).

    `image_id`: the image the mark names, read in the same query and kept on the scene for
    `mark_create`, which then reads it no more (whether it is one of the scene's included)."""
    return hotpath.scene_to_draw_on(user=user, scene_id=scene_id, image_id=image_id)
