"""The FileService contract every storage backend implements, and its errors.

Paths are opaque strings carrying their backend's scheme (``local://{key}``, ``s3://…``);
callers store them and hand them back, never build them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from core.errors import Internal, NotFound, SluiceError


class StorageError(SluiceError):
    """A storage operation failed (backend unreachable, I/O error, bad path…); one that no
    subclass refines is the storage failing, which callers may retry. Its text (paths,
    provider messages) is for the log."""

    component = "file storage"


class UnsafePathError(StorageError, Internal):
    """A name or path would escape its directory, or is not valid for this backend. No
    client input reaches storage as a path (clients name files by knowledge id or
    ``resource://`` reference, both resolved to paths the server built, and uploaded names
    are sanitised first), so it is a bug or a corrupted record, not a bad argument."""


class FileNotFoundInStorage(StorageError, NotFound):
    """The path does not exist in storage; a client is told only that the file is gone."""

    def __init__(self, path: str) -> None:
        NotFound.__init__(
            self,
            "sluice.v1.StoredFile",
            "",
            message="the stored file is gone",
            description="gone from file storage",
        )
        self.args = (path,)  # str(exc) is the path, for the log


@dataclass(frozen=True, slots=True)
class StoredFile:
    path: str
    size: int
    md5: str  # hex digest


class Upload(Protocol):
    """A file being written piece by piece; invisible at its final path until commit."""

    @property
    def size(self) -> int: ...

    @property
    def md5_hex(self) -> str: ...

    def write(self, chunk: bytes) -> None: ...

    def commit(self) -> StoredFile:
        """Publish the file atomically: readers see all of it or nothing."""
        ...

    def abort(self) -> None:
        """Discard everything written; safe to call more than once, or after commit fails."""
        ...


class FileService(Protocol):
    def begin_upload(self, tenant_id: str, knowledge_id: str, file_name: str) -> Upload:
        """Start an upload of a knowledge's original file (key: tenant/knowledge/uuid.ext)."""
        ...

    def save_stream(
        self, tenant_id: str, knowledge_id: str, file_name: str, chunks: Iterable[bytes]
    ) -> StoredFile: ...

    def save_bytes(self, tenant_id: str, file_name: str, data: bytes, *, temp: bool = False) -> str:
        """Store derived bytes (extracted images, exports) under ``tenant/exports/``.
        ``temp`` marks short-lived files, which backends may keep in a temporary area."""
        ...

    def open(self, path: str) -> BinaryIO:
        """A readable binary stream; use it as a context manager."""
        ...

    def read_bytes(self, path: str) -> bytes: ...

    def url(self, path: str) -> str:
        """A URL at which the file can be fetched."""
        ...

    def delete(self, path: str) -> None:
        """Remove the file; a missing file is not an error."""
        ...

    def copy(self, src_path: str, tenant_id: str, knowledge_id: str) -> str:
        """Copy a file to a new original key of ``knowledge_id``; returns the new path."""
        ...

    def exists(self, path: str) -> bool: ...

    def check_connectivity(self) -> None:
        """Raise StorageError unless the backend is usable right now: written to, or (for
        a backend that proves writes only now and then, see S3) at least answering."""
        ...


def write_upload(upload: Upload, chunks: Iterable[bytes]) -> StoredFile:
    """Every backend's ``save_stream``: the chunks written into ``upload`` and committed, or
    the upload aborted when anything fails on the way."""
    try:
        for chunk in chunks:
            upload.write(chunk)
        return upload.commit()
    except BaseException:
        upload.abort()
        raise
