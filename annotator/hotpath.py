"""Hand-written SQL for the three reads every mark save makes: the signed-in user with their roles
(every request with a session), the scene the mark goes on (with its video's length and its
project's labels), and the image it is drawn on. Everything else goes through the ORM.

Why: building and compiling these queries cost Django far more than running them. Under the
8-client unit load (`bench/scale.py --profile`) the user and its roles took 13 % of the request
samples and the scene 27 % of a mark POST's, about 90 % of it in the ORM (filter, add_q, the SQL
compiler) and 10 % in SQLite. Timed alone on the demo data, per call:

    the user, then its roles (two ORM queries)          280 us    here, one query    55 us
    the scene to draw on (select_related, subquery)     552 us    here               30-47 us

A mark POST makes all three, so this is about 1 ms of CPU per save (bench/README.md, "Reads a
save makes, written by hand").

Each function answers exactly what the ORM query in its docstring answers, on both databases;
tests/annotator/test_hotpath.py checks them against those querysets on the same rows, for every
case the access rules tell apart. Table and column names come from the models' _meta, so a
renamed column is a test failure here, not a silent mismatch.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections, router

from annotator.access.roles import roles_remember
from annotator.models import Project, ProjectMembership, SatelliteImage, Scene, Video
from annotator.models.scenes import Assignment

# The extra columns' names: a raw query sets them as attributes of the row's object.
ROLE, DURATION, LABELS = "skymark_role", "skymark_duration_s", "skymark_labels"


def _q(alias: str, model: Any, field: str | None = None) -> str:
    """The quoted table, or table.column, of a model field on this connection. The SQL here is
    built from these names alone, read from the models; every value is a query parameter."""
    quote = connections[alias].ops.quote_name
    table = quote(model._meta.db_table)
    return table if field is None else f"{table}.{quote(model._meta.get_field(field).column)}"


@functools.cache
def _user_sql(alias: str) -> str:
    user_model: Any = get_user_model()
    groups = user_model._meta.get_field("groups")
    via: Any = groups.remote_field.through
    group: Any = groups.related_model
    mine, theirs = groups.m2m_field_name(), groups.m2m_reverse_field_name()
    columns = ", ".join(_q(alias, user_model, f.name) for f in user_model._meta.concrete_fields)
    role = connections[alias].ops.quote_name(ROLE)
    return (
        f"SELECT {columns}, {_q(alias, group, 'name')} AS {role} "  # noqa: S608 - see _q
        f"FROM {_q(alias, user_model)} "
        f"LEFT JOIN {_q(alias, via)} ON {_q(alias, via, mine)} = {_q(alias, user_model, 'id')} "
        f"LEFT JOIN {_q(alias, group)} ON {_q(alias, group, 'id')} = {_q(alias, via, theirs)} "
        f"WHERE {_q(alias, user_model, 'id')} = %s"
    )


def user_with_roles(user_id: Any) -> Any | None:
    """The user with this primary key, or None, with their roles known (annotator.access.roles),
    in one query. As the ORM: `User.objects.get(pk=user_id)`, then `user.groups.values_list("name")`."""
    user_model = get_user_model()
    alias = router.db_for_read(user_model)
    rows = list(user_model._default_manager.db_manager(alias).raw(_user_sql(alias), [user_id]))
    if not rows:
        return None
    user = rows[0]
    names = {name for row in rows if (name := vars(row).pop(ROLE)) is not None}
    roles_remember(user, names)
    return user


@functools.cache
def _scene_sql(alias: str, members_only: bool) -> str:
    quote = connections[alias].ops.quote_name
    sql = (
        f"SELECT {_q(alias, Scene, 'id')}, {_q(alias, Scene, 'project')}, {_q(alias, Scene, 'video')}, "  # noqa: S608
        f"{_q(alias, Video, 'duration_s')} AS {quote(DURATION)}, {_q(alias, Project, 'labels')} AS {quote(LABELS)} "
        f"FROM {_q(alias, Scene)} "
        f"INNER JOIN {_q(alias, Assignment)} ON {_q(alias, Assignment, 'scene')} = {_q(alias, Scene, 'id')} "
        f"INNER JOIN {_q(alias, Video)} ON {_q(alias, Video, 'id')} = {_q(alias, Scene, 'video')} "
        f"INNER JOIN {_q(alias, Project)} ON {_q(alias, Project, 'id')} = {_q(alias, Scene, 'project')} "
        f"WHERE {_q(alias, Scene, 'id')} = %s AND {_q(alias, Assignment, 'annotator')} = %s"
    )
    if members_only:
        sql += (
            f" AND {_q(alias, Scene, 'project')} IN (SELECT {_q(alias, ProjectMembership, 'project')} "  # noqa: S608
            f"FROM {_q(alias, ProjectMembership)} WHERE {_q(alias, ProjectMembership, 'user')} = %s)"
        )
    return sql


def scene_to_draw_on(*, user: Any, scene_id: int) -> Scene | None:
    """The scene, when it is assigned to `user` in a project they are a member of (superusers: any
    project), with `scene.video` (id and duration_s only) and `scene.project` (id and labels only)
    loaded; None otherwise. As the ORM:

        Scene.objects.filter(id=scene_id, assignments__annotator_id=user.pk)
            .select_related("video", "project")
            .only("id", "project_id", "video_id", "video__duration_s", "project__labels")
            .filter(project_id__in=ProjectMembership.objects.filter(user_id=user.pk).values("project_id"))
            .first()
    """
    alias = router.db_for_read(Scene)
    members_only = not getattr(user, "is_superuser", False)
    params = [scene_id, user.pk] + ([user.pk] if members_only else [])
    rows = list(Scene.objects.db_manager(alias).raw(_scene_sql(alias, members_only), params))
    if not rows:
        return None  # the assignment is unique per scene and annotator: at most one row
    scene = rows[0]
    extra = vars(scene)
    labels_field: Any = Project._meta.get_field("labels")
    labels = labels_field.from_db_value(extra.pop(LABELS), None, connections[alias])
    # from_db, as the ORM builds rows: the fields not read stay deferred (loaded if ever touched).
    scene.video = Video.from_db(alias, ["id", "duration_s"], [scene.video_id, extra.pop(DURATION)])
    scene.project = Project.from_db(alias, ["id", "labels"], [scene.project_id, labels])
    return scene


@functools.cache
def _image_sql(alias: str) -> str:
    via: Any = Scene._meta.get_field("satellite_images").remote_field.through
    columns = ", ".join(_q(alias, SatelliteImage, f) for f in ("id", "width", "height", "georef"))
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
    rows = list(SatelliteImage.objects.db_manager(alias).raw(_image_sql(alias), [scene_id, image_id]))
    return rows[0] if rows else None
