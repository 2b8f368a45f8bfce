"""Hand-written SQL for the reads every mark save makes: the signed-in user with their roles
(every request with a session), and the scene the mark goes on (with its video's length and its
project's labels) together with the image it is drawn on; and for the read the workspace makes
most, an annotator's page of their marks on a scene. The package holds every read written by hand,
and nothing else does: a request's session with its user (`session`), an annotator's items list
(`items`), a reviewer's queue (`queue`) and blind steps (`steps`), a compile's phrasings
(`phrasings_of_task`), and the one way their rows become model instances (`rows`).
Everything else goes through the ORM.

Why: building and compiling these queries cost Django far more than running them. Under the
8-client unit load (`bench/scale.py --profile`) the user and its roles took 13 % of the request
samples and the scene 27 % of a mark POST's, about 90 % of it in the ORM (filter, add_q, the SQL
compiler) and 10 % in SQLite. Timed alone on the demo data, per call:

    the user, then its roles (two ORM queries)          280 us    here, one query    55 us
    the scene to draw on (select_related, subquery)     552 us    here               30-47 us

A mark POST makes all three (the image since in the scene's query: one round trip fewer on
PostgreSQL), so this is about 1 ms of CPU per save (bench/README.md, "Reads a
save makes, written by hand"). A compile reads the marks it is made from, with their images and
whether the scene is still assigned (`marks_to_compile`): under the 8-client unit load at the
benchmark's size (`bench/scale.py --scale 1 --profile`) that ORM read was 5.8 % of the web
processes' samples, over a third of the compile's 15.8 %; timed alone, 1.3 ms in the ORM against
0.03 ms in SQLite for two marks. The compile holds the embedded default's one writer lock while it
reads, so the mark saves queued behind it waited on that too. Under the 8-client read load,
building and compiling the scene's visibility check and its marks query was half of an
annotator's marks read (the view's samples: the marks queryset built 23 %, compiled 15 %, the
scene check 17 %); see `own_marks_of_scene`.

Each function answers exactly what the ORM query in its docstring answers, on both databases;
tests/annotator/hotpath/test_init.py checks them against those querysets on the same rows, for every
case the access rules tell apart. Table and column names come from the models' _meta, so a
renamed column is a test failure here, not a silent mismatch.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections, router

from annotator.access.roles import roles_remember
from annotator.compiling.lifecycle import OPEN_STATES
from annotator.hotpath.rows import fetch, field_names, instance
from annotator.models import Item, Mark, Phrasing, Project, ProjectMembership, SatelliteImage, Scene, Video
from annotator.models.scenes import Assignment

# The name of the user query's extra column: a group's name, one row per group.
ROLE = "skymark_role"


def _q(alias: str, model: Any, field: str | None = None) -> str:
    """The quoted table, or table.column, of a model field on this connection. The SQL here is
    built from these names alone, read from the models; every value is a query parameter."""
    quote = connections[alias].ops.quote_name
    table = quote(model._meta.db_table)
    return table if field is None else f"{table}.{quote(model._meta.get_field(field).column)}"


def user_columns_and_roles(alias: str) -> tuple[str, str]:
    """The user's columns (in field order) with a last one, its group's name, and the LEFT JOINs
    after the user's table that give a row per group (one with NULL when it has none)."""
    user_model: Any = get_user_model()
    groups = user_model._meta.get_field("groups")
    via: Any = groups.remote_field.through
    group: Any = groups.related_model
    mine, theirs = groups.m2m_field_name(), groups.m2m_reverse_field_name()
    columns = ", ".join(_q(alias, user_model, f.name) for f in user_model._meta.concrete_fields)
    role = connections[alias].ops.quote_name(ROLE)
    joins = (
        f"LEFT JOIN {_q(alias, via)} ON {_q(alias, via, mine)} = {_q(alias, user_model, 'id')} "
        f"LEFT JOIN {_q(alias, group)} ON {_q(alias, group, 'id')} = {_q(alias, via, theirs)} "
    )
    return f"{columns}, {_q(alias, group, 'name')} AS {role}", joins


@functools.cache
def _user_sql(alias: str) -> str:
    user_model: Any = get_user_model()
    columns, joins = user_columns_and_roles(alias)
    return (
        f"SELECT {columns} FROM {_q(alias, user_model)} {joins}"  # noqa: S608 - see _q
        f"WHERE {_q(alias, user_model, 'id')} = %s"
    )


def user_from_rows(alias: str, rows: list[tuple[Any, ...]]) -> Any:
    """The user with their roles from the rows of `user_columns_and_roles` (the user's columns,
    then the group's name), or None when they hold no user (the LEFT JOIN found none)."""
    if not rows or rows[0][0] is None:
        return None
    user_model = get_user_model()
    # through the rows' one reader (rows.py), not a RawQuerySet: 37 against 80-90 us (every request
    # with a session asks this)
    user = instance(alias, user_model, field_names(user_model), rows[0][:-1])
    roles_remember(user, {row[-1] for row in rows if row[-1] is not None})
    return user


def user_with_roles(user_id: Any) -> Any | None:
    """The user with this primary key, or None, with their roles known (annotator.access.roles),
    in one query. As the ORM: `User.objects.get(pk=user_id)`, then `user.groups.values_list("name")`."""
    alias = router.db_for_read(get_user_model())
    # a row per group; the user's columns repeat
    return user_from_rows(alias, fetch(alias, _user_sql(alias), [user_id]))


# what scene_to_draw_on reads of the scene, in the model's field order (as rows.instance takes them)
_SCENE_FIELDS = tuple(name for name in field_names(Scene) if name in ("id", "project", "video"))


@functools.cache
def _scene_sql(alias: str, members_only: bool, with_image: bool) -> str:
    columns = ", ".join(_q(alias, Scene, name) for name in _SCENE_FIELDS)
    via: Any = Scene._meta.get_field("satellite_images").remote_field.through
    image = ", ".join(_q(alias, SatelliteImage, f) for f in _IMAGE_FIELDS)
    sql = (
        f"SELECT {columns}, {_q(alias, Video, 'duration_s')}, {_q(alias, Project, 'labels')}"
        + (f", {image} " if with_image else " ")
        + f"FROM {_q(alias, Scene)} "
        f"INNER JOIN {_q(alias, Assignment)} ON {_q(alias, Assignment, 'scene')} = {_q(alias, Scene, 'id')} "
        f"INNER JOIN {_q(alias, Video)} ON {_q(alias, Video, 'id')} = {_q(alias, Scene, 'video')} "
        f"INNER JOIN {_q(alias, Project)} ON {_q(alias, Project, 'id')} = {_q(alias, Scene, 'project')} "
    )
    if with_image:  # the image's row only when it is one of the scene's (else NULLs)
        sql += (
            f"LEFT JOIN {_q(alias, via)} ON {_q(alias, via, 'scene')} = {_q(alias, Scene, 'id')} "
            f"AND {_q(alias, via, 'satelliteimage')} = %s "
            f"LEFT JOIN {_q(alias, SatelliteImage)} "
            f"ON {_q(alias, SatelliteImage, 'id')} = {_q(alias, via, 'satelliteimage')} "
        )
    sql += f"WHERE {_q(alias, Scene, 'id')} = %s AND {_q(alias, Assignment, 'annotator')} = %s"
    return sql + (_in_member_projects(alias) if members_only else "")


def _member_projects(alias: str) -> str:
    """The projects the user (the parameter) is a member of, as a subquery (access.scopes's rule)."""
    return (
        f"(SELECT {_q(alias, ProjectMembership, 'project')} FROM {_q(alias, ProjectMembership)} "  # noqa: S608
        f"WHERE {_q(alias, ProjectMembership, 'user')} = %s)"
    )


def _in_member_projects(alias: str) -> str:
    """The scene's project is one the user (the parameter) is a member of (access.scopes's rule)."""
    return f" AND {_q(alias, Scene, 'project')} IN {_member_projects(alias)}"


# The attribute of a scene from `scene_to_draw_on(image_id=...)` that holds (image_id, the image or
# None when it is not one of the scene's): marking.services reads the image from it, not again.
CHECKED_IMAGE = "skymark_checked_image"


def scene_to_draw_on(*, user: Any, scene_id: int, image_id: int | None = None) -> Scene | None:
    """The scene, when it is assigned to `user` in a project they are a member of (superusers: any
    project), with `scene.video` (id and duration_s only) and `scene.project` (id and labels only)
    loaded; None otherwise. As the ORM:

        Scene.objects.filter(id=scene_id, assignments__annotator_id=user.pk)
            .select_related("video", "project")
            .only("id", "project_id", "video_id", "video__duration_s", "project__labels")
            .filter(project_id__in=ProjectMembership.objects.filter(user_id=user.pk).values("project_id"))
            .first()

    With `image_id`, the same query also answers `image_of_scene(scene_id, image_id)`, kept on the
    scene as CHECKED_IMAGE: a mark POST names its image, and reading it apart was one more round trip
    of a save's four (bench/README.md, "A mark POST in four queries")."""
    alias = router.db_for_read(Scene)
    members_only = not getattr(user, "is_superuser", False)
    with_image = image_id is not None
    params = ([image_id] if with_image else []) + [scene_id, user.pk] + ([user.pk] if members_only else [])
    fetched = fetch(alias, _scene_sql(alias, members_only, with_image), params)
    if not fetched:
        return None
    row = fetched[0]  # the assignment is unique per scene and annotator, an image once per scene: one row
    n = len(_SCENE_FIELDS)
    # as the ORM builds rows: the fields not read stay deferred (loaded if ever touched)
    scene = instance(alias, Scene, _SCENE_FIELDS, row[:n])
    scene.video = instance(alias, Video, ("id", "duration_s"), (scene.video_id, row[n]))
    scene.project = instance(alias, Project, ("id", "labels"), (scene.project_id, row[n + 1]))
    if with_image:
        image = row[n + 2 :]
        found = instance(alias, SatelliteImage, _IMAGE_FIELDS, image) if image[0] is not None else None
        setattr(scene, CHECKED_IMAGE, (image_id, found))
    return scene


# what a mark needs of its image, in the model's field order
_IMAGE_FIELDS = tuple(name for name in field_names(SatelliteImage) if name in ("id", "width", "height", "georef"))


@functools.cache
def _image_sql(alias: str) -> str:
    via: Any = Scene._meta.get_field("satellite_images").remote_field.through
    columns = ", ".join(_q(alias, SatelliteImage, f) for f in _IMAGE_FIELDS)
    return (
        f"SELECT {columns} FROM {_q(alias, SatelliteImage)} "  # noqa: S608 - see _q
        f"INNER JOIN {_q(alias, via)} ON {_q(alias, via, 'satelliteimage')} = {_q(alias, SatelliteImage, 'id')} "
        f"WHERE {_q(alias, via, 'scene')} = %s AND {_q(alias, SatelliteImage, 'id')} = %s"
    )


def image_of_scene(*, scene_id: int, image_id: int) -> SatelliteImage | None:
    """The image when it is one of the scene's, with what a mark needs of it (id, width, height,
    georef; the rest deferred); None otherwise. As the ORM:
    `scene.satellite_images.filter(id=image_id).only("id", "width", "height", "georef").first()`."""
    alias = router.db_for_read(SatelliteImage)
    fetched = fetch(alias, _image_sql(alias), [scene_id, image_id])
    return instance(alias, SatelliteImage, _IMAGE_FIELDS, fetched[0]) if fetched else None


@functools.cache
def _assigned_sql(alias: str) -> str:
    return (
        f"SELECT {_q(alias, Scene, 'id')} FROM {_q(alias, Scene)} "  # noqa: S608 - see _q
        f"INNER JOIN {_q(alias, Assignment)} ON {_q(alias, Assignment, 'scene')} = {_q(alias, Scene, 'id')} "
        f"WHERE {_q(alias, Scene, 'id')} = %s AND {_q(alias, Assignment, 'annotator')} = %s"
        + _in_member_projects(alias)
    )


@functools.cache
def _own_marks_sql(alias: str) -> str:
    via: Any = Item._meta.get_field("marks").remote_field.through
    columns = ", ".join(_q(alias, Mark, f.name) for f in Mark._meta.concrete_fields)
    quote = connections[alias].ops.quote_name
    states = ", ".join(["%s"] * len(OPEN_STATES))
    return (
        f"SELECT {columns}, "  # noqa: S608 - see _q
        f"(SELECT {_q(alias, SatelliteImage, 'georef')} FROM {_q(alias, SatelliteImage)} "
        f"WHERE {_q(alias, SatelliteImage, 'id')} = {_q(alias, Mark, 'satellite_image')}) AS {quote(IMAGE_GEOREF)}, "
        f"EXISTS(SELECT 1 FROM {_q(alias, via)} "
        f"INNER JOIN {_q(alias, Item)} ON {_q(alias, Item, 'id')} = {_q(alias, via, 'item')} "
        # `+ 0` keeps SQLite off the author index, as in lifecycle.movable_items_exist (its reason)
        f"WHERE {_q(alias, via, 'mark')} = {_q(alias, Mark, 'id')} AND ({_q(alias, Item, 'author')} + 0) = %s "
        f"AND {_q(alias, Item, 'state')} IN ({states}) AND {_q(alias, Item, 'replaced_by')} IS NULL) "
        f"AS {quote(COPY_ON_EDIT)} "
        f"FROM {_q(alias, Mark)} WHERE {_q(alias, Mark, 'scene')} = %s AND {_q(alias, Mark, 'author')} = %s "
        f"ORDER BY {_q(alias, Mark, 'id')} LIMIT %s OFFSET %s"
    )


# The two extra columns of an annotator's marks, named as marking.selectors.marks_for_scene
# annotates them: the serializer reads them by these names.
IMAGE_GEOREF, COPY_ON_EDIT = "image_georef", "copy_on_edit"


class OwnMarks:
    """An annotator's marks on one scene in id order, as annotator.pagination reads a list: sliced,
    it reads that page in one query; `count()` counts them."""

    def __init__(self, *, alias: str, user_id: int, scene_id: int) -> None:
        self.alias, self.user_id, self.scene_id = alias, user_id, scene_id

    def __getitem__(self, page: slice) -> list[Mark]:
        start = page.start or 0
        params = [self.user_id, *OPEN_STATES, self.scene_id, self.user_id, page.stop - start, start]
        names, marks, connection = field_names(Mark), [], connections[self.alias]
        n = len(names)
        for row in fetch(self.alias, _own_marks_sql(self.alias), params):
            mark = instance(self.alias, Mark, names, row[:n], connection)
            setattr(mark, IMAGE_GEOREF, row[n])  # text as stored, as the ORM's Subquery gives it
            # The ORM's Exists() converts SQLite's 0/1 to a boolean; a column read by hand comes as stored.
            setattr(mark, COPY_ON_EDIT, bool(row[n + 1]))
            marks.append(mark)
        return marks

    def count(self) -> int:
        # Asked only when a page is full: the ORM's COUNT, nothing to save by hand.
        return Mark.objects.using(self.alias).filter(scene_id=self.scene_id, author_id=self.user_id).count()


def own_marks_of_scene(*, user: Any, scene_id: int) -> OwnMarks | None:
    """For a user who sees only their own work (annotator.access.scopes.sees_own_work_only): their
    marks on the scene, each with `image_georef` and `copy_on_edit`, when the scene is assigned to
    them in a project they are a member of; None otherwise (not theirs to see: 404). As the ORM:

        scene = scene_get_visible(user=user, scene_id=scene_id)   # the check: one query
        Mark.objects.filter(scene=scene, author=user)             # marks_visible for such a user
            .filter(scene__project_id__in=<their projects>)       # the scene's, checked above
            .annotate(image_georef=Subquery(<the image's georef>, output_field=TextField()),
                      copy_on_edit=movable_items_exist(author_id=user.pk))

    (marking.selectors.marks_for_scene). Two queries for a page, as there; three when it is full."""
    alias = router.db_for_read(Mark)
    if not fetch(alias, _assigned_sql(alias), [scene_id, user.pk, user.pk]):
        return None
    return OwnMarks(alias=alias, user_id=user.pk, scene_id=scene_id)


@functools.cache
def _compile_marks_sql(alias: str, members_only: bool, n: int) -> str:
    marks = ", ".join(_q(alias, Mark, f.name) for f in Mark._meta.concrete_fields)
    images = ", ".join(_q(alias, SatelliteImage, f.name) for f in SatelliteImage._meta.concrete_fields)
    assigned = (
        f"EXISTS(SELECT 1 FROM {_q(alias, Assignment)} "  # noqa: S608 - see _q
        f"INNER JOIN {_q(alias, Scene)} ON {_q(alias, Scene, 'id')} = {_q(alias, Assignment, 'scene')} "
        f"WHERE {_q(alias, Assignment, 'annotator')} = %s "
        f"AND {_q(alias, Assignment, 'scene')} = {_q(alias, Mark, 'scene')}"
        + (_in_member_projects(alias) if members_only else "")
        + ")"
    )
    return (
        f"SELECT {marks}, {images}, {assigned} FROM {_q(alias, Mark)} "  # noqa: S608 - see _q
        f"INNER JOIN {_q(alias, SatelliteImage)} "
        f"ON {_q(alias, SatelliteImage, 'id')} = {_q(alias, Mark, 'satellite_image')} "
        f"WHERE {_q(alias, Mark, 'author')} = %s AND {_q(alias, Mark, 'id')} IN ({', '.join(['%s'] * n)}) "
        f"ORDER BY {_q(alias, Mark, 'id')}"
    )


def marks_to_compile(*, user: Any, mark_ids: list[int]) -> list[Mark]:
    """The user's own marks among these ids in id order, each with `satellite_image` loaded and
    `assigned`: whether its scene is assigned to the user in a project they are a member of
    (superusers: any project). As the ORM (compiling.services.marks_for_item):

        Mark.objects.select_related("satellite_image").filter(id__in=mark_ids, author_id=user.pk)
            .annotate(assigned=scene_assigned(user=user, scene_id=OuterRef("scene_id")))
            .order_by("id")
    """
    ids = sorted(set(mark_ids))
    if not ids:
        return []
    alias = router.db_for_read(Mark)
    members_only = not getattr(user, "is_superuser", False)
    params = [user.pk, *([user.pk] if members_only else []), user.pk, *ids]
    names, image_names = field_names(Mark), field_names(SatelliteImage)
    n, m = len(names), len(image_names)
    marks, connection = [], connections[alias]
    for row in fetch(alias, _compile_marks_sql(alias, members_only, len(ids)), params):
        mark = instance(alias, Mark, names, row[:n], connection)
        mark.satellite_image = instance(alias, SatelliteImage, image_names, row[n : n + m], connection)
        # the ORM's Exists() converts SQLite's 0/1 to a boolean; a column read by hand comes as stored
        mark.assigned = bool(row[n + m])  # type: ignore[attr-defined]
        marks.append(mark)
    return marks


def phrasings_of_task(*, task: str) -> list[tuple[str, str, int | None, int]]:
    """(polarity, text, builtin_index, id) of the task's enabled phrasings, built-in ones in
    template order, then the added ones by id. Every compile reads these; built and compiled by
    the ORM the read was 5 % of the web processes' CPU samples under the 8-client unit load on
    PostgreSQL, about all of it building the query (bench/README.md, "The health check without a
    round trip"). As the ORM (what compiling.phrasings.phrasebook_load read):

        Phrasing.objects.filter(task=task, enabled=True)
            .order_by(F("builtin_index").asc(nulls_last=True), "id")
            .values_list("polarity", "text", "builtin_index", "id")
    """
    alias = router.db_for_read(Phrasing)
    return [tuple(row) for row in fetch(alias, _phrasings_sql(alias), [task, True])]  # type: ignore[misc]


@functools.cache
def _phrasings_sql(alias: str) -> str:
    index = _q(alias, Phrasing, "builtin_index")
    return (
        f"SELECT {_q(alias, Phrasing, 'polarity')}, {_q(alias, Phrasing, 'text')}, {index}, "  # noqa: S608 - see _q
        f"{_q(alias, Phrasing, 'id')} FROM {_q(alias, Phrasing)} "
        f"WHERE {_q(alias, Phrasing, 'task')} = %s AND {_q(alias, Phrasing, 'enabled')} = %s "
        f"ORDER BY {index} IS NULL, {index}, {_q(alias, Phrasing, 'id')}"
    )
