"""A FileService that stores nothing, for tests of the layers above storage."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import BinaryIO

from storage.files.base import FileNotFoundInStorage, StoredFile, write_upload
from storage.files.keys import export_key, original_key

SCHEME = "dummy://"


class DummyUpload:
    """Measures and hashes what it is given, then forgets it."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._size = 0

    @property
    def size(self) -> int:
        return self._size

    @property
    def md5_hex(self) -> str:
        return self._md5.hexdigest()

    def write(self, chunk: bytes) -> None:
        self._md5.update(chunk)
        self._size += len(chunk)

    def commit(self) -> StoredFile:
        return StoredFile(path=self._path, size=self._size, md5=self.md5_hex)

    def abort(self) -> None:
        self._size = 0


class DummyFileService:
    def owns(self, path: str) -> bool:
        return path.startswith(SCHEME)

    def begin_upload(self, tenant_id: str, knowledge_id: str, file_name: str) -> DummyUpload:
        return DummyUpload(SCHEME + original_key(tenant_id, knowledge_id, file_name))

    def save_stream(
        self, tenant_id: str, knowledge_id: str, file_name: str, chunks: Iterable[bytes]
    ) -> StoredFile:
        return write_upload(self.begin_upload(tenant_id, knowledge_id, file_name), chunks)

    def save_bytes(self, tenant_id: str, file_name: str, data: bytes, *, temp: bool = False) -> str:
        return SCHEME + export_key(tenant_id, file_name)

    def open(self, path: str) -> BinaryIO:
        raise FileNotFoundInStorage(path)

    def read_bytes(self, path: str) -> bytes:
        raise FileNotFoundInStorage(path)

    def url(self, path: str) -> str:
        return path

    def delete(self, path: str) -> None:
        return None

    def copy(self, src_path: str, tenant_id: str, knowledge_id: str) -> str:
        return SCHEME + original_key(tenant_id, knowledge_id, src_path)

    def exists(self, path: str) -> bool:
        return False

    def check_connectivity(self) -> None:
        return None
