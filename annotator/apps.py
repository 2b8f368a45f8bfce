from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from annotator.compiling.modelview import model_view_files_delete
        from annotator.models import ModelView

        # A model view goes with its item (a replaced draft, a draft whose mark was deleted), by
        # whichever path deletes it: its files must not outlive it in storage.
        post_delete.connect(model_view_files_delete, sender=ModelView, dispatch_uid="modelview-files")
