from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    default_auto_field = "django.db.models.BigAutoField"
