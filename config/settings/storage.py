"""Media storage: S3-compatible (django-storages) when S3_BUCKET is set, else a local folder."""

from __future__ import annotations

from typing import Any

from config import env

MEDIA_URL = "/media/"
MEDIA_ROOT = env.MEDIA_ROOT

_static = {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"}
# Files read from S3 are buffered in memory up to this size, then on disk (django-storages keeps a
# whole object in memory by default: a release archive would hold each video in memory).
S3_MAX_MEMORY_BYTES = 8 << 20


def s3_storage(
    *,
    bucket: str,
    endpoint_url: str,
    access_key: str,
    secret_key: str,
    region: str,
    public_endpoint_url: str = "",
    url_expire_s: int = 3600,
) -> dict[str, Any]:
    """The default storage on an S3-compatible server. Settings and the tests' local server both
    build it here, so the tests run the options production runs. Objects are private (no ACL: the
    bucket's, which is private) and read through signed URLs; stored names are never overwritten."""
    return {
        "BACKEND": "annotator.s3storage.PrivateS3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            "endpoint_url": endpoint_url or None,
            "public_endpoint_url": public_endpoint_url or None,
            "access_key": access_key,
            "secret_key": secret_key,
            "region_name": region,
            "default_acl": None,
            "querystring_auth": True,
            "querystring_expire": url_expire_s,
            # Signature V4: what every region and MinIO accept (botocore would sign URLs with V2 here).
            "signature_version": "s3v4",
            "file_overwrite": False,
            "max_memory_size": S3_MAX_MEMORY_BYTES,
        },
    }


if env.S3_BUCKET:
    STORAGES = {
        "default": s3_storage(
            bucket=env.S3_BUCKET,
            endpoint_url=env.S3_ENDPOINT_URL,
            access_key=env.S3_ACCESS_KEY_ID,
            secret_key=env.S3_SECRET_ACCESS_KEY,
            region=env.S3_REGION,
            public_endpoint_url=env.S3_PUBLIC_ENDPOINT_URL,
            url_expire_s=env.S3_URL_EXPIRE_S,
        ),
        "staticfiles": _static,
    }
else:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": _static,
    }
