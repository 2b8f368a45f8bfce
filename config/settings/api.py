"""Django REST framework and the OpenAPI schema."""

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    # JSON with size, depth and number limits (annotator/parsers.py); forms and uploads as DRF has them.
    "DEFAULT_PARSER_CLASSES": [
        "annotator.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "annotator.openapi.SkymarkAutoSchema",
    # Every list API answers in pages of this size (at most MAX_PAGE_SIZE with ?limit=): annotator/pagination.py
    "DEFAULT_PAGINATION_CLASS": "annotator.pagination.Pages",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "annotator.exceptions.api_exception_handler",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Skymark API",
    "DESCRIPTION": "UAV-satellite cross-view benchmark building: scenes, marks, items, reviews, releases.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MarkKindEnum": "annotator.models.Mark.Kind",
        "MediaJobKindEnum": "annotator.models.MediaJob.Kind",
        "MediaJobStateEnum": "annotator.models.MediaJob.State",
        "ItemStateEnum": "annotator.models.Item.State",
        "ItemTaskEnum": "annotator.models.Item.Task",
        # A model view's rendering and a CVAA training run share these four states.
        "RunStateEnum": "annotator.models.ModelView.State",
        "ReviewDecisionEnum": "review.models.reviews.Decision",
        "VerdictEnum": [("approve", "Approve"), ("reject", "Reject")],
    },
}
