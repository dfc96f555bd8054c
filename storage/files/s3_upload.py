"""One object being written to S3 piece by piece, invisible until ``commit``.

A file that fits in one part is sent by a single PUT at commit. A larger one becomes a real
multipart upload: whenever ``part_size`` bytes have arrived they go up as the next part,
on at most ``max_parallel_parts`` threads, so memory stays bounded by about
``(max_parallel_parts + 1) * part_size`` whatever the file's size, and the caller keeps
receiving while earlier parts travel. ``commit`` completes the multipart upload, which is
when the object appears, whole; ``abort`` (and any failure) aborts it, so neither a partial
object nor orphaned parts stay behind. Each part and each single PUT carries its
Content-MD5, so the store refuses bytes damaged in transit.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from types import TracebackType
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from storage.files.base import StorageError, StoredFile
from storage.files.keys import content_type_of
from storage.files.s3_errors import error_code, s3_errors

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef

log = logging.getLogger(__name__)


def content_md5(data: bytes | bytearray) -> str:
    return base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode()


class S3Upload:
    def __init__(
        self,
        client: S3Client,
        bucket: str,
        key: str,
        path: str,
        *,
        part_size: int,
        max_parallel_parts: int,
    ) -> None:
        self._client = client
        self._bucket = bucket
        self._key = key
        self._path = path
        self._part_size = part_size
        self._max_parallel = max_parallel_parts
        self._buffer = bytearray()
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._size = 0
        self._upload_id: str | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._in_flight: list[Future[CompletedPartTypeDef]] = []
        self._parts: list[CompletedPartTypeDef] = []
        self._next_part = 1
        self._open = True
        self._committed = False

    @property
    def size(self) -> int:
        return self._size

    @property
    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def write(self, chunk: bytes) -> None:
        if not self._open:
            raise StorageError("upload is already committed or aborted")
        self._md5.update(chunk)
        self._size += len(chunk)
        self._buffer += chunk
        while len(self._buffer) >= self._part_size:
            part = bytes(self._buffer[: self._part_size])
            del self._buffer[: self._part_size]
            self._send_part(part)

    def commit(self) -> StoredFile:
        if not self._open:
            raise StorageError("upload is already committed or aborted")
        try:
            if self._upload_id is None:
                self._put_whole()
            else:
                self._complete_multipart()
        except BaseException:
            try:
                self.abort()
            except StorageError as abort_error:
                # The commit's own error is the one to report; this one only leaves parts
                # for the bucket's lifecycle rule to clean up.
                log.warning("%s", abort_error)
            raise
        self._open = False
        self._committed = True
        self._buffer = bytearray()
        return StoredFile(path=self._path, size=self._size, md5=self.md5_hex)

    def abort(self) -> None:
        """Stop, wait for parts still travelling (an abort racing them could leave them
        stored), then abort the multipart upload. Idempotent; a no-op after commit."""
        self._open = False
        self._buffer = bytearray()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._in_flight = []
        if self._upload_id is not None and not self._committed:
            upload_id, self._upload_id = self._upload_id, None
            try:
                self._client.abort_multipart_upload(
                    Bucket=self._bucket, Key=self._key, UploadId=upload_id
                )
            except ClientError as exc:
                if error_code(exc) != "NoSuchUpload":
                    raise StorageError(f"aborting the upload of {self._path} failed") from exc
            except BotoCoreError as exc:
                raise StorageError(f"aborting the upload of {self._path} failed") from exc

    def _put_whole(self) -> None:
        with s3_errors("uploading", self._path):
            self._client.put_object(
                Bucket=self._bucket,
                Key=self._key,
                Body=bytes(self._buffer),
                ContentMD5=content_md5(self._buffer),
                ContentType=content_type_of(self._key),
            )

    def _complete_multipart(self) -> None:
        if self._buffer:
            self._send_part(bytes(self._buffer))
            self._buffer = bytearray()
        while self._in_flight:
            self._collect(wait_for_all=True)
        assert self._upload_id is not None
        parts = sorted(self._parts, key=lambda part: part["PartNumber"])
        with s3_errors("completing the upload of", self._path):
            self._client.complete_multipart_upload(
                Bucket=self._bucket,
                Key=self._key,
                UploadId=self._upload_id,
                MultipartUpload={"Parts": parts},
            )
        self._committed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def _send_part(self, data: bytes) -> None:
        if self._upload_id is None:
            with s3_errors("starting the upload of", self._path):
                created = self._client.create_multipart_upload(
                    Bucket=self._bucket, Key=self._key, ContentType=content_type_of(self._key)
                )
            self._upload_id = created["UploadId"]
            self._pool = ThreadPoolExecutor(self._max_parallel, thread_name_prefix="s3-part")
        # Bounded: wait for a slot, so at most max_parallel parts are held in memory.
        while len(self._in_flight) >= self._max_parallel:
            self._collect(wait_for_all=False)
        assert self._pool is not None
        number, self._next_part = self._next_part, self._next_part + 1
        self._in_flight.append(self._pool.submit(self._upload_part, number, data))

    def _collect(self, *, wait_for_all: bool) -> None:
        """Take finished parts; the first failed one raises (the caller aborts)."""
        done, pending = wait(
            self._in_flight, return_when="ALL_COMPLETED" if wait_for_all else FIRST_COMPLETED
        )
        self._in_flight = list(pending)
        for future in done:
            self._parts.append(future.result())

    def _upload_part(self, number: int, data: bytes) -> CompletedPartTypeDef:
        assert self._upload_id is not None
        with s3_errors(f"uploading part {number} of", self._path):
            answer = self._client.upload_part(
                Bucket=self._bucket,
                Key=self._key,
                UploadId=self._upload_id,
                PartNumber=number,
                Body=data,
                ContentMD5=content_md5(data),
            )
        return {"PartNumber": number, "ETag": answer["ETag"]}

    def __enter__(self) -> S3Upload:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._committed:
            self.abort()
