# The review flow: assignments (a reviewer's queue), revisions, adjudication, gold items, the
# policy row, the rejection taxonomy (seeded here; admins edit it), and the append-only audit log
# of item transitions, which the database itself keeps from being changed or deleted.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


# The taxonomy a fresh installation starts with: what goes wrong in cross-view video items, then
# the four criteria VLRS-Bench's experts rejected by (its Table 6). Tests seed from this list too.
REASONS_SEED = [
    (
        "wrong_key",
        "Wrong answer key",
        "The key does not answer the question as the video and the image show it.",
        "item",
    ),
    (
        "wrong_option",
        "Wrong or ambiguous option",
        "An option is wrong in itself or reads in more than one way.",
        "item",
    ),
    ("distractor_correct", "A distractor is also correct", "Another option answers the question as well.", "item"),
    (
        "mark_misplaced",
        "Mark misplaced",
        "A region, point or track is not where the thing is on the satellite image.",
        "item",
    ),
    ("wrong_time_anchor", "Wrong time anchor", "The time or interval does not match the video.", "item"),
    ("question_unclear", "Question unclear", "The wording does not make clear what is asked.", "item"),
    (
        "evidence_not_visible",
        "Evidence not visible in the video",
        "What the key rests on cannot be seen in the drone video.",
        "item",
    ),
    (
        "cross_view_mismatch",
        "Cross-view mismatch",
        "The drone view and the satellite image do not correspond where the item says they do.",
        "item",
    ),
    (
        "ambiguity",
        "Ambiguity & clarity",
        "Question or options are vague or allow multiple interpretations.",
        "criterion",
    ),
    (
        "evidence_mismatch",
        "Visual evidence mismatch",
        "The ground truth is not strictly supported by visible cues.",
        "criterion",
    ),
    ("triviality", "Triviality", "Reasoning is too simple (e.g. pure detection) or lacks depth.", "criterion"),
    (
        "professional_relevance",
        "Professional relevance",
        "Terminology is non-standard or the scenario is unrealistic.",
        "criterion",
    ),
]
# Codes of the fixed list before the taxonomy became a table, and what they are now.
RENAMED = {
    "wrong_answer": "wrong_key",
    "mark_geometry": "mark_misplaced",
    "time_anchor": "wrong_time_anchor",
    "distractor_quality": "distractor_correct",
}
SUBMITTED = ["in_review", "in_adjudication", "approved", "rejected"]


def seed(apps, schema_editor):  # type: ignore[no-untyped-def]
    RejectionReason = apps.get_model("review", "RejectionReason")
    for position, (code, label, description, group) in enumerate(REASONS_SEED):
        RejectionReason.objects.get_or_create(
            code=code, defaults={"label": label, "description": description, "group": group, "position": position}
        )
    apps.get_model("review", "ReviewPolicy").objects.get_or_create(id=1)
    apps.get_model("auth", "Group").objects.get_or_create(name="adjudicator")


def carry_over(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Reviews made before this flow: their reasons under today's codes, their score, an assignment
    each (the queue is assignments now), a revision-1 snapshot of each submitted item, and one
    audit event per item saying in which state the log found it."""
    Item = apps.get_model("annotator", "Item")
    Review = apps.get_model("review", "Review")
    for review in Review.objects.all():
        review.reasons = [RENAMED.get(r, r) for r in review.reasons]
        review.blind_score = 1.0 if review.blind_correct else 0.0
        review.save(update_fields=["reasons", "blind_score"])
    apps.get_model("review", "ReviewAssignment").objects.bulk_create(
        apps.get_model("review", "ReviewAssignment")(
            item_id=r.item_id, revision=1, reviewer_id=r.reviewer_id, done_at=r.decided_at
        )
        for r in Review.objects.all()
    )
    apps.get_model("review", "ItemRevision").objects.bulk_create(
        apps.get_model("review", "ItemRevision")(
            item_id=i.id,
            number=1,
            question=i.question,
            options=i.options,
            answer=i.answer,
            answer_format=i.answer_format,
            provenance=i.provenance,
            submitted_by_id=i.author_id,
        )
        for i in Item.objects.filter(state__in=SUBMITTED)
    )
    apps.get_model("review", "ItemEvent").objects.bulk_create(
        apps.get_model("review", "ItemEvent")(
            item_id=i.id, revision=1, action="recorded", to_state=i.state, reason="state when the audit log began"
        )
        for i in Item.objects.all()
    )


APPEND_ONLY = {
    "postgresql": [
        """
        CREATE OR REPLACE FUNCTION skymark_refuse_audit_change() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION 'the audit log is append-only: % of event % refused', TG_OP, OLD.id
                USING ERRCODE = '23001';
        END $$ LANGUAGE plpgsql
        """,
        "CREATE TRIGGER review_itemevent_append_only BEFORE UPDATE OR DELETE ON review_itemevent "
        "FOR EACH ROW EXECUTE FUNCTION skymark_refuse_audit_change()",
    ],
    "sqlite": [
        f"""
        CREATE TRIGGER review_itemevent_append_only_{op.lower()} BEFORE {op} ON review_itemevent FOR EACH ROW
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only: {op} refused'); END
        """
        for op in ("UPDATE", "DELETE")
    ],
}
DROP = {
    "postgresql": [
        "DROP TRIGGER IF EXISTS review_itemevent_append_only ON review_itemevent",
        "DROP FUNCTION IF EXISTS skymark_refuse_audit_change()",
    ],
    "sqlite": [f"DROP TRIGGER IF EXISTS review_itemevent_append_only_{op}" for op in ("update", "delete")],
}


def _run(statements):  # type: ignore[no-untyped-def]
    def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql, params=None)  # no parameters: the % in RAISE messages stay

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0010_item_adjudication_revision"),
        ("review", "0003_submissions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Adjudication",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("revision", models.PositiveIntegerField()),
                (
                    "decision",
                    models.CharField(
                        choices=[("pending", "Pending"), ("approve", "Approve"), ("reject", "Reject")], max_length=16
                    ),
                ),
                ("reason", models.TextField()),
                ("reasons", models.JSONField(blank=True, default=list)),
                ("anchor_time_s", models.FloatField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="GoldItem",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("marked_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="ItemEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("revision", models.PositiveIntegerField()),
                ("action", models.CharField(max_length=32)),
                ("from_state", models.CharField(blank=True, max_length=16)),
                ("to_state", models.CharField(blank=True, max_length=16)),
                ("reason", models.TextField(blank=True)),
                ("at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="ItemRevision",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("number", models.PositiveIntegerField()),
                ("question", models.TextField()),
                ("options", models.JSONField(default=list)),
                ("answer", models.CharField(max_length=200)),
                ("answer_format", models.CharField(max_length=16)),
                ("provenance", models.JSONField(default=dict)),
                ("submitted_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["item_id", "number"],
            },
        ),
        migrations.CreateModel(
            name="RejectionReason",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.SlugField(max_length=40, unique=True)),
                ("label", models.CharField(max_length=120)),
                ("description", models.TextField(blank=True)),
                (
                    "group",
                    models.CharField(
                        choices=[("item", "Item construction"), ("criterion", "Expert criterion (VLRS-Bench)")],
                        default="item",
                        max_length=16,
                    ),
                ),
                ("active", models.BooleanField(default=True)),
                ("position", models.PositiveSmallIntegerField(default=0)),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.CreateModel(
            name="ReviewAssignment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("revision", models.PositiveIntegerField()),
                ("gold", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("opened_at", models.DateTimeField(blank=True, null=True)),
                ("done_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.CreateModel(
            name="ReviewPolicy",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("reviewers_per_item", models.PositiveSmallIntegerField(default=2)),
                ("admins_adjudicate", models.BooleanField(default=True)),
                ("gold_rate", models.FloatField(default=0.1)),
                ("gold_min_accuracy", models.FloatField(default=0.8)),
                ("gold_min_answers", models.PositiveSmallIntegerField(default=5)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={
                "verbose_name_plural": "review policy",
            },
        ),
        migrations.RemoveConstraint(
            model_name="review",
            name="review_one_per_reviewer",
        ),
        migrations.AddField(
            model_name="review",
            name="anchor_time_s",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="review",
            name="answer_seconds",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="review",
            name="blind_score",
            field=models.FloatField(default=0.0),
        ),
        migrations.AddField(
            model_name="review",
            name="decision_seconds",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="review",
            name="gold",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="review",
            name="revision",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.UniqueConstraint(fields=("item", "revision", "reviewer"), name="review_one_per_reviewer"),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("decided_at__isnull", True), ("decision", "pending")),
                    models.Q(models.Q(("decision", "pending"), _negated=True), ("decided_at__isnull", False)),
                    _connector="OR",
                ),
                name="review_decided_when",
            ),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.CheckConstraint(
                condition=models.Q(("blind_score__gte", 0), ("blind_score__lte", 1)), name="review_score_unit"
            ),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.CheckConstraint(
                condition=models.Q(("anchor_time_s__isnull", True), ("anchor_time_s__gte", 0), _connector="OR"),
                name="review_anchor_time_nonneg",
            ),
        ),
        migrations.AddConstraint(
            model_name="review",
            constraint=models.CheckConstraint(
                condition=models.Q(("revision__gte", 1)), name="review_revision_positive"
            ),
        ),
        migrations.AddField(
            model_name="adjudication",
            name="adjudicator",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="adjudications", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddField(
            model_name="adjudication",
            name="anchor_mark",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="annotator.mark",
            ),
        ),
        migrations.AddField(
            model_name="adjudication",
            name="item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="adjudications", to="annotator.item"
            ),
        ),
        migrations.AddField(
            model_name="golditem",
            name="item",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT, related_name="gold", to="annotator.item"
            ),
        ),
        migrations.AddField(
            model_name="golditem",
            name="marked_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddField(
            model_name="itemevent",
            name="actor",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="item_events",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="itemevent",
            name="item",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="audit_events",
                to="annotator.item",
            ),
        ),
        migrations.AddField(
            model_name="itemrevision",
            name="item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="revisions", to="annotator.item"
            ),
        ),
        migrations.AddField(
            model_name="itemrevision",
            name="submitted_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="rejectionreason",
            constraint=models.CheckConstraint(
                condition=models.Q(("group__in", ["item", "criterion"])), name="reason_group_valid"
            ),
        ),
        migrations.AddField(
            model_name="reviewassignment",
            name="assigned_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="reviewassignment",
            name="item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="review_assignments", to="annotator.item"
            ),
        ),
        migrations.AddField(
            model_name="reviewassignment",
            name="reviewer",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="review_assignments",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="reviewpolicy",
            name="updated_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddConstraint(
            model_name="adjudication",
            constraint=models.UniqueConstraint(fields=("item", "revision"), name="adjudication_once_per_revision"),
        ),
        migrations.AddConstraint(
            model_name="adjudication",
            constraint=models.CheckConstraint(
                condition=models.Q(("decision__in", ["approve", "reject"])), name="adjudication_decision_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="adjudication",
            constraint=models.CheckConstraint(
                condition=models.Q(("reason", ""), _negated=True), name="adjudication_reason_present"
            ),
        ),
        migrations.AddConstraint(
            model_name="adjudication",
            constraint=models.CheckConstraint(
                condition=models.Q(("anchor_time_s__isnull", True), ("anchor_time_s__gte", 0), _connector="OR"),
                name="adjudication_anchor_time_nonneg",
            ),
        ),
        migrations.AddIndex(
            model_name="itemevent",
            index=models.Index(fields=["item", "id"], name="item_event_item"),
        ),
        migrations.AddConstraint(
            model_name="itemrevision",
            constraint=models.UniqueConstraint(fields=("item", "number"), name="item_revision_once"),
        ),
        migrations.AddIndex(
            model_name="reviewassignment",
            index=models.Index(fields=["reviewer", "done_at"], name="assignment_reviewer_open"),
        ),
        migrations.AddConstraint(
            model_name="reviewassignment",
            constraint=models.UniqueConstraint(
                fields=("item", "revision", "reviewer"), name="assignment_once_per_reviewer"
            ),
        ),
        migrations.AddConstraint(
            model_name="reviewassignment",
            constraint=models.CheckConstraint(
                condition=models.Q(("revision__gte", 1)), name="assignment_revision_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="reviewpolicy",
            constraint=models.CheckConstraint(condition=models.Q(("id", 1)), name="review_policy_single_row"),
        ),
        migrations.AddConstraint(
            model_name="reviewpolicy",
            constraint=models.CheckConstraint(
                condition=models.Q(("reviewers_per_item__gte", 1), ("reviewers_per_item__lte", 5)),
                name="review_policy_reviewers",
            ),
        ),
        migrations.AddConstraint(
            model_name="reviewpolicy",
            constraint=models.CheckConstraint(
                condition=models.Q(("gold_rate__gte", 0), ("gold_rate__lte", 0.5)), name="review_policy_gold_rate"
            ),
        ),
        migrations.AddConstraint(
            model_name="reviewpolicy",
            constraint=models.CheckConstraint(
                condition=models.Q(("gold_min_accuracy__gte", 0), ("gold_min_accuracy__lte", 1)),
                name="review_policy_gold_accuracy",
            ),
        ),
        migrations.RunPython(seed, migrations.RunPython.noop),
        migrations.RunPython(carry_over, migrations.RunPython.noop),
        migrations.RunPython(_run(APPEND_ONLY), _run(DROP)),
    ]
