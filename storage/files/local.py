"""Files on the local disk under one base directory; paths look like ``local://{key}``."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import BinaryIO
from urllib.parse import quote

from storage.files.base import (
    FileNotFoundInStorage,
    StorageError,
    StoredFile,
    UnsafePathError,
    write_upload,
)
from storage.files.keys import export_key, original_key, safe_path_under_base

SCHEME = "local://"
# Uploads are written here first: same file system as their targets, so publishing one is
# a rename. No key can start with "." (see keys._segment), so it never collides with data.
STAGING_DIR = ".staging"


class LocalUpload:
    """Streams into a staging file, hashing as it goes; ``commit`` renames it into place."""

    def __init__(self, target: Path, path: str, staging_dir: Path) -> None:
        self._target = target
        self._path = path
        staging_dir.mkdir(parents=True, exist_ok=True)
        descriptor, staging_name = tempfile.mkstemp(dir=staging_dir, suffix=".part")
        self._staging = Path(staging_name)
        self._file: BinaryIO | None = os.fdopen(descriptor, "wb")
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._size = 0
        self._committed = False

    @property
    def size(self) -> int:
        return self._size

    @property
    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def write(self, chunk: bytes) -> None:
        if self._file is None:
            raise StorageError("upload is already committed or aborted")
        try:
            self._file.write(chunk)
        except OSError as exc:
            raise StorageError(f"writing upload failed: {exc}") from exc
        self._md5.update(chunk)
        self._size += len(chunk)

    def commit(self) -> StoredFile:
        if self._file is None:
            raise StorageError("upload is already committed or aborted")
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            _publish(self._staging, self._target)
        except OSError as exc:
            self.abort()
            raise StorageError(f"publishing upload failed: {exc}") from exc
        self._committed = True
        return StoredFile(path=self._path, size=self._size, md5=self.md5_hex)

    def abort(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._staging.unlink(missing_ok=True)

    def __enter__(self) -> LocalUpload:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._committed:
            self.abort()


class LocalFileService:
    def __init__(self, base_dir: str | Path, *, public_base_url: str | None = None) -> None:
        """``public_base_url``: where the API serves this directory, for ``url``; without it
        ``url`` returns a file:// URI."""
        self._base = Path(base_dir).resolve()
        self._base.mkdir(parents=True, exist_ok=True)
        self._staging = self._base / STAGING_DIR
        self._public_base_url = public_base_url.rstrip("/") if public_base_url else None

    def owns(self, path: str) -> bool:
        return path.startswith(SCHEME)

    def begin_upload(self, tenant_id: str, knowledge_id: str, file_name: str) -> LocalUpload:
        return self._upload(original_key(tenant_id, knowledge_id, file_name))

    def save_stream(
        self, tenant_id: str, knowledge_id: str, file_name: str, chunks: Iterable[bytes]
    ) -> StoredFile:
        return write_upload(self.begin_upload(tenant_id, knowledge_id, file_name), chunks)

    def save_bytes(self, tenant_id: str, file_name: str, data: bytes, *, temp: bool = False) -> str:
        # One directory serves both: a local disk has no separate short-lived area.
        with self._upload(export_key(tenant_id, file_name)) as upload:
            upload.write(data)
            return upload.commit().path

    def open(self, path: str) -> BinaryIO:
        try:
            return self._resolve(path).open("rb")
        except (FileNotFoundError, IsADirectoryError) as exc:
            raise FileNotFoundInStorage(path) from exc
        except OSError as exc:
            raise StorageError(f"cannot open {path}: {exc}") from exc

    def read_bytes(self, path: str) -> bytes:
        with self.open(path) as file:
            return file.read()

    def url(self, path: str) -> str:
        target = self._resolve(path)
        if self._public_base_url is None:
            return target.as_uri()
        return f"{self._public_base_url}/{quote(self._key(path))}"

    def delete(self, path: str) -> None:
        target = self._resolve(path)
        try:
            target.unlink(missing_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot delete {path}: {exc}") from exc
        # A knowledge's (or an import's) folder goes with its last file; a tenant's stays.
        if target.parent.parent != self._base:
            with contextlib.suppress(OSError):  # not empty: another file is still there
                target.parent.rmdir()

    def copy(self, src_path: str, tenant_id: str, knowledge_id: str) -> str:
        key = original_key(tenant_id, knowledge_id, self._key(src_path))
        with self.open(src_path) as source, self._upload(key) as upload:
            while chunk := source.read(1 << 20):
                upload.write(chunk)
            return upload.commit().path

    def exists(self, path: str) -> bool:
        return self._resolve(path).is_file()

    def check_connectivity(self) -> None:
        try:
            self._staging.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self._staging, suffix=".probe") as probe:
                probe.write(b"ok")
                probe.flush()
        except OSError as exc:
            raise StorageError(f"local storage {self._base} is not writable: {exc}") from exc

    def _upload(self, key: str) -> LocalUpload:
        return LocalUpload(self._resolve(SCHEME + key), SCHEME + key, self._staging)

    def _key(self, path: str) -> str:
        if not path.startswith(SCHEME):
            raise UnsafePathError(f"not a local storage path: {path!r}")
        return path[len(SCHEME) :]

    def _resolve(self, path: str) -> Path:
        key = self._key(path)
        if key.startswith("."):
            raise UnsafePathError(f"unsafe path {path!r}")
        return safe_path_under_base(self._base, key)


def _publish(staging: Path, target: Path) -> None:
    """Rename ``staging`` into place, making its folder; made again if a delete of the
    folder's last file removed it in between."""
    for attempt in range(2):
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(staging, target)
            return
        except FileNotFoundError:
            if attempt or not staging.exists():
                raise
