# Projects: every scene belongs to one. What existed before goes into a "Default project" with the
# label set of SKYMARK_LABELS, and every user becomes a member of it in the roles of their groups.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import annotator.models.projects

ROLES = ("annotator", "reviewer", "adjudicator", "admin")


def default_project(apps, schema_editor):  # type: ignore[no-untyped-def]
    from annotator.projects.rules import default_label_rows

    Project = apps.get_model("annotator", "Project")
    Membership = apps.get_model("annotator", "ProjectMembership")
    Scene = apps.get_model("annotator", "Scene")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    project, _ = Project.objects.get_or_create(
        slug="default", defaults={"name": "Default project", "labels": default_label_rows()}
    )
    Scene.objects.filter(project__isnull=True).update(project=project)
    rows = []
    for user in User.objects.prefetch_related("groups"):
        roles = {g.name for g in user.groups.all()} & set(ROLES)
        if user.is_superuser:
            roles.add("admin")
        rows += [Membership(project=project, user=user, role=role) for role in sorted(roles)]
    Membership.objects.bulk_create(rows, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0020_modelview_lease"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="Project",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200, unique=True)),
                ("slug", models.SlugField(max_length=60, unique=True)),
                ("description", models.TextField(blank=True)),
                ("labels", models.JSONField(default=list)),
                ("task_mix", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("slug", ""), _negated=True), name="project_slug_present")
                ],
            },
        ),
        migrations.CreateModel(
            name="ProjectMembership",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("annotator", "Annotator"),
                            ("reviewer", "Reviewer"),
                            ("adjudicator", "Adjudicator"),
                            ("admin", "Admin"),
                        ],
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="annotator.project",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="project_memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["project_id", "role", "user_id"],
                "constraints": [
                    models.UniqueConstraint(fields=("project", "user", "role"), name="membership_unique"),
                    models.CheckConstraint(
                        condition=models.Q(("role__in", ["annotator", "reviewer", "adjudicator", "admin"])),
                        name="membership_role_valid",
                    ),
                ],
            },
        ),
        migrations.AddField(
            model_name="scene",
            name="project",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.PROTECT, related_name="scenes", to="annotator.project"
            ),
        ),
        migrations.RunPython(default_project, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="scene",
            name="project",
            field=models.ForeignKey(
                default=annotator.models.projects.project_default_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="scenes",
                to="annotator.project",
            ),
        ),
    ]
