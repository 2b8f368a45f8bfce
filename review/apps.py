from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The item lifecycle (annotator) announces transitions; review listens, so annotator never
        # imports review. The audit recorder is connected first: it records every transition.
        from annotator.access.scopes import blind_source_register, judged_source_register
        from annotator.compiling.lifecycle import item_transitioned
        from review.audit.recorder import record_transition
        from review.reviewing.blind import items_adjudicated_by, items_assigned_to, items_awaiting_blind_answer
        from review.reviewing.receivers import on_item_transition

        item_transitioned.connect(record_transition, dispatch_uid="review.audit")
        item_transitioned.connect(on_item_transition, dispatch_uid="review.assign")
        # Who must still answer what blind; annotator.access.scopes hides those items' marks,
        # keys, provenance and records from them.
        blind_source_register(items_awaiting_blind_answer)
        # Which submitted items a reviewer or adjudicator may see at all: theirs, not everyone's.
        judged_source_register(items_assigned_to)
        judged_source_register(items_adjudicated_by)
        from django.db.models.signals import post_delete, post_save

        from review.models import ReviewAssignment

        post_save.connect(_judged_changed, sender=ReviewAssignment, dispatch_uid="review-assignment-access")
        post_delete.connect(_judged_changed, sender=ReviewAssignment, dispatch_uid="review-assignment-access-gone")


def _judged_changed(sender: object, instance: object, **kwargs: object) -> None:
    # A new assignment opens the item's scene and images to the reviewer at once (cached per tile).
    from annotator.access.scopes import access_changed

    access_changed(user_id=instance.reviewer_id)  # type: ignore[attr-defined]
