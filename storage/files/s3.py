"""Files in an S3-compatible bucket (AWS S3, MinIO, COS, OSS, TOS, OBS, KS3); paths look
like ``s3://{bucket}/{key}``.

Every provider keeps the ``s3://`` scheme: they all speak one protocol through one client,
and the bucket in the path says where the object is. Short-lived files (``save_bytes`` with
``temp=True``) go to ``temp_bucket`` when one is configured (a bucket with an expiry rule,
say), else to the main bucket. Keys follow storage.files.keys; a path handed back is only
accepted when it names one of this service's buckets and a key this service could have
written.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import quote

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from storage.files.base import StorageError, StoredFile, UnsafePathError, write_upload
from storage.files.keys import export_key, original_key, safe_object_key
from storage.files.s3_config import S3Config
from storage.files.s3_errors import is_not_found, s3_errors
from storage.files.s3_upload import S3Upload

if TYPE_CHECKING:
    from botocore.response import StreamingBody
    from mypy_boto3_s3.client import S3Client

SCHEME = "s3://"
# check_connectivity's write probe is one object under this prefix; no key of ours starts
# with "." (tenant ids cannot), so it never meets data.
PROBE_PREFIX = ".sluice-probe/"


def build_client(config: S3Config) -> S3Client:
    return boto3.client(
        "s3",
        endpoint_url=config.endpoint,
        region_name=config.region,
        # None: boto3's default credential chain.
        aws_access_key_id=config.access_key or None,
        aws_secret_access_key=config.secret_key or None,
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": config.addressing_style},
            connect_timeout=config.connect_timeout_s,
            read_timeout=config.read_timeout_s,
            retries={"max_attempts": 3, "mode": "standard"},
            # Newer boto3 adds CRC checksums to every request by default; several
            # S3-compatible providers reject or mishandle them. Content-MD5 (sent with every
            # PUT and part) already guards integrity, so checksums only where required.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        ),
    )


class S3FileService:
    def __init__(self, config: S3Config, *, client: S3Client | None = None) -> None:
        self._config = config
        self._client = client or build_client(config)
        self._buckets = frozenset(b for b in (config.bucket, config.temp_bucket) if b)
        # Whether a write probe passed, with no failed check since (see check_connectivity).
        self._writes_proven = False

    def owns(self, path: str) -> bool:
        """Whether ``path`` names an object in one of this service's buckets."""
        bucket, _, _ = path.removeprefix(SCHEME).partition("/")
        return path.startswith(SCHEME) and bucket in self._buckets

    def begin_upload(self, tenant_id: str, knowledge_id: str, file_name: str) -> S3Upload:
        return self._upload(self._config.bucket, original_key(tenant_id, knowledge_id, file_name))

    def save_stream(
        self, tenant_id: str, knowledge_id: str, file_name: str, chunks: Iterable[bytes]
    ) -> StoredFile:
        return write_upload(self.begin_upload(tenant_id, knowledge_id, file_name), chunks)

    def save_bytes(self, tenant_id: str, file_name: str, data: bytes, *, temp: bool = False) -> str:
        config = self._config
        bucket = config.temp_bucket if temp and config.temp_bucket else config.bucket
        with self._upload(bucket, export_key(tenant_id, file_name)) as upload:
            upload.write(data)
            return upload.commit().path

    def open(self, path: str) -> BinaryIO:
        bucket, key = self._locate(path)
        with s3_errors("reading", path):
            body = self._client.get_object(Bucket=bucket, Key=key)["Body"]
        return io.BufferedReader(_ObjectStream(body, path), buffer_size=1 << 20)

    def read_bytes(self, path: str) -> bytes:
        with self.open(path) as file:
            return file.read()

    def url(self, path: str) -> str:
        bucket, key = self._locate(path)
        if self._config.public_base_url and bucket == self._config.bucket:
            return f"{self._config.public_base_url.rstrip('/')}/{quote(key)}"
        with s3_errors("signing a URL for", path):
            return self._client.generate_presigned_url(
                "get_object",
                Params={"Bucket": bucket, "Key": key},
                ExpiresIn=self._config.url_expiry_s,
            )

    def delete(self, path: str) -> None:
        bucket, key = self._locate(path)
        with s3_errors("deleting", path):
            self._client.delete_object(Bucket=bucket, Key=key)

    def copy(self, src_path: str, tenant_id: str, knowledge_id: str) -> str:
        """A server-side copy (multipart past the part size): no byte passes through here."""
        bucket, key = self._locate(src_path)
        target = original_key(tenant_id, knowledge_id, key.rsplit("/", 1)[-1])
        transfer = TransferConfig(
            multipart_threshold=self._config.part_size,
            multipart_chunksize=self._config.part_size,
            max_concurrency=self._config.max_parallel_parts,
        )
        with s3_errors("copying", src_path):
            self._client.copy(
                {"Bucket": bucket, "Key": key}, self._config.bucket, target, Config=transfer
            )
        return self._path(self._config.bucket, target)

    def exists(self, path: str) -> bool:
        bucket, key = self._locate(path)
        try:
            self._client.head_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            if is_not_found(exc):
                return False
            raise StorageError(f"checking {path} failed: {exc}") from exc
        except BotoCoreError as exc:
            raise StorageError(f"checking {path} failed: {exc}") from exc
        return True

    def check_connectivity(self) -> None:
        """The endpoint answers, the credentials are valid and the buckets exist.

        The first check, and the first after a failed one, also proves the bucket takes
        writes: it writes and deletes a tiny probe object. The others only HEAD the bucket
        (which needs s3:ListBucket): a probe every health interval from every API process
        would leave a version behind each time in a versioned bucket, and an object each
        time a delete failed. A write permission lost in between shows as failing uploads."""
        proven, self._writes_proven = self._writes_proven, False
        bucket = self._config.bucket
        if proven:
            with s3_errors("checking", self._path(bucket, "")):
                self._client.head_bucket(Bucket=bucket)
        else:
            probe = f"{PROBE_PREFIX}{uuid.uuid4().hex}"
            with s3_errors("writing a probe to", self._path(bucket, probe)):
                self._client.put_object(Bucket=bucket, Key=probe, Body=b"ok")
                self._client.delete_object(Bucket=bucket, Key=probe)
        if self._config.temp_bucket:
            with s3_errors("checking", self._path(self._config.temp_bucket, "")):
                self._client.head_bucket(Bucket=self._config.temp_bucket)
        self._writes_proven = True

    def _upload(self, bucket: str, key: str) -> S3Upload:
        return S3Upload(
            self._client,
            bucket,
            key,
            self._path(bucket, key),
            part_size=self._config.part_size,
            max_parallel_parts=self._config.max_parallel_parts,
        )

    def _path(self, bucket: str, key: str) -> str:
        return f"{SCHEME}{bucket}/{key}"

    def _locate(self, path: str) -> tuple[str, str]:
        if not self.owns(path):
            raise UnsafePathError(f"not a path of this S3 backend: {path!r}")
        bucket, _, key = path.removeprefix(SCHEME).partition("/")
        return bucket, safe_object_key(key)


class _ObjectStream(io.RawIOBase):
    """An object's body as a raw stream whose failures are StorageErrors."""

    def __init__(self, body: StreamingBody, path: str) -> None:
        self._body = body
        self._path = path

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        with s3_errors("reading", self._path):
            data = self._body.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._body.close()
        super().close()
