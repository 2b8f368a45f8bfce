from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from annotator.compiling.modelview import model_view_files_delete
        from annotator.models import Assignment, ModelView, ProjectMembership

        # A model view goes with its item (a replaced draft, a draft whose mark was deleted), by
        # whichever path deletes it: its files must not outlive it in storage.
        post_delete.connect(model_view_files_delete, sender=ModelView, dispatch_uid="modelview-files")
        from annotator import removal

        removal.connect()
        # Losing (or gaining) a scene changes what images the annotator may load: cached answers go.
        post_save.connect(_assignment_changed, sender=Assignment, dispatch_uid="assignment-access")
        post_delete.connect(_assignment_changed, sender=Assignment, dispatch_uid="assignment-access-gone")
        # Joining or leaving a project opens or closes its scenes and images.
        post_save.connect(_membership_changed, sender=ProjectMembership, dispatch_uid="membership-access")
        post_delete.connect(_membership_changed, sender=ProjectMembership, dispatch_uid="membership-access-gone")


def _assignment_changed(sender: object, instance: object, **kwargs: object) -> None:
    from annotator.access.scopes import access_changed

    access_changed(user_id=instance.annotator_id)  # type: ignore[attr-defined]


def _membership_changed(sender: object, instance: object, **kwargs: object) -> None:
    from annotator.access.scopes import access_changed

    access_changed(user_id=instance.user_id)  # type: ignore[attr-defined]
