"""The S3 storage media live in (loaded only when settings name it, so a web process on a local
media folder never imports boto3).

Objects are private; people read them through short-lived signed URLs that the media views hand
out after checking who asks (annotator/serving.py). A signature covers the host, so URLs are signed
for the endpoint browsers reach (`public_endpoint_url`) when it differs from the one servers use
(inside docker-compose the app reaches http://minio:9000, a browser does not)."""

from __future__ import annotations

from typing import Any

from storages.backends.s3 import S3Storage
from storages.utils import clean_name


class PrivateS3Storage(S3Storage):
    def get_default_settings(self) -> dict[str, Any]:
        return {**super().get_default_settings(), "public_endpoint_url": None}

    def url(
        self,
        name: str,
        parameters: dict[str, Any] | None = None,
        expire: int | None = None,
        http_method: str | None = None,
    ) -> str:
        if not self.public_endpoint_url:
            return super().url(name, parameters, expire, http_method)
        params = {**(parameters or {}), "Bucket": self.bucket_name, "Key": self._normalize_name(clean_name(name))}
        return self._public_client().generate_presigned_url(
            "get_object",
            Params=params,
            ExpiresIn=self.querystring_expire if expire is None else expire,
            HttpMethod=http_method,
        )

    def copy_within(self, source: str, target: str) -> None:
        """Copy a stored object to a new name on the server's side (CopyObject, multipart for large
        objects through boto3's managed copy): its bytes never pass through this machine."""
        key = self._normalize_name(clean_name(target))
        copy_source = {"Bucket": self.bucket_name, "Key": self._normalize_name(clean_name(source))}
        self.bucket.copy(copy_source, key)

    def _public_client(self) -> Any:
        """A client that only signs (it sends nothing), one per thread like the storage's own."""
        client = getattr(self._connections, "public_client", None)
        if client is None:
            client = self._create_session().client(
                "s3",
                region_name=self.region_name,
                use_ssl=self.use_ssl,
                endpoint_url=self.public_endpoint_url,
                config=self.client_config,
                verify=self.verify,
            )
            self._connections.public_client = client
        return client
