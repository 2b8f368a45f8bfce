"""Media storage: S3-compatible (django-storages) when S3_BUCKET is set, else a local folder."""

from config import env

MEDIA_URL = "/media/"
MEDIA_ROOT = env.MEDIA_ROOT

_static = {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"}

if env.S3_BUCKET:
    STORAGES = {
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": env.S3_BUCKET,
                "endpoint_url": env.S3_ENDPOINT_URL or None,
                "access_key": env.S3_ACCESS_KEY_ID,
                "secret_key": env.S3_SECRET_ACCESS_KEY,
                "region_name": env.S3_REGION,
                "default_acl": None,
                "querystring_auth": True,
                "file_overwrite": False,
            },
        },
        "staticfiles": _static,
    }
else:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": _static,
    }
