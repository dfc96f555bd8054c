"""Several storage backends behind one FileService (spec: «Два слоя-обёртки», backend_scoped).

A deployment names its backend instances ("disk", "s3-main"…). With more than one, every
path this service hands out says which instance holds the file:

    storage://{backend_id}/{inner path}      e.g. storage://s3-main/s3://bucket/t/k/x.pdf

and every operation on a path goes to that instance. With a single backend paths are the
backend's own (``local://…``), exactly as without this layer. Paths without the prefix
(stored before a second backend was configured) still resolve, to a backend that claims
their kind (``owns``: the scheme, and for S3 the bucket). When several do — two local disks
both take ``local://`` paths — the one that has the file wins (one stat each, default
first); when none has it, the default backend if it claims the path, else the first that
does in configuration order (so a missing file reads as missing, and deleting it is a no-op).

Writes (``begin_upload``, ``save_stream``, ``save_bytes``, ``copy``) go to the *write
backend*: the default one, or the one chosen with ``for_backend`` (how a knowledge base
bound to a backend instance stores its files). Reading, URLs and deleting follow the path,
whatever the write backend. ``copy`` never crosses backends: it is a server-side copy
inside one instance, and a source on another instance is refused with a StorageError.

API for the layers above (the resource catalog builds on it): ``backend_ids``,
``default_backend_id``, ``for_backend``, ``backend``, ``wrap``, ``unwrap``,
``check_backends``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import BinaryIO, Protocol

from core.errors import FailedPrecondition
from storage.files.base import FileService, StorageError, StoredFile, UnsafePathError, Upload

SCHEME = "storage://"
BACKEND_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ScopedBackend(FileService, Protocol):
    def owns(self, path: str) -> bool:
        """Whether ``path`` is of this backend's kind (an unwrapped path it could hold); no
        I/O, so several backends may claim one path (see ``unwrap``)."""
        ...


class UnknownBackendError(StorageError, FailedPrecondition):
    """A backend id that is not configured in this deployment: retrying cannot help until
    an operator configures it again. ``message`` is what a client is told; ``str(exc)``
    (which may hold the path) is for the log."""

    def __init__(self, backend_id: str, message: str) -> None:
        FailedPrecondition.__init__(
            self,
            "STORAGE_BACKEND_NOT_CONFIGURED",
            backend_id,
            f"the file is on storage backend {backend_id!r}, which this deployment "
            "does not configure",
        )
        self.args = (message,)
        self.backend_id = backend_id


class _WrappedUpload:
    """An upload whose committed path carries its backend's prefix."""

    def __init__(self, inner: Upload, prefix: str) -> None:
        self._inner = inner
        self._prefix = prefix

    @property
    def size(self) -> int:
        return self._inner.size

    @property
    def md5_hex(self) -> str:
        return self._inner.md5_hex

    def write(self, chunk: bytes) -> None:
        self._inner.write(chunk)

    def commit(self) -> StoredFile:
        stored = self._inner.commit()
        return StoredFile(path=self._prefix + stored.path, size=stored.size, md5=stored.md5)

    def abort(self) -> None:
        self._inner.abort()


class BackendScopedFileService:
    def __init__(
        self,
        backends: Mapping[str, ScopedBackend],
        default_id: str,
        *,
        write_backend_id: str = "",
    ) -> None:
        if not backends:
            raise ValueError("at least one storage backend is needed")
        for backend_id in backends:
            if not BACKEND_ID_PATTERN.fullmatch(backend_id):
                raise ValueError(f"invalid storage backend id {backend_id!r}")
        if default_id not in backends:
            raise ValueError(f"default storage backend {default_id!r} is not configured")
        self._backends = dict(backends)
        self._default_id = default_id
        self._write_id = write_backend_id or default_id
        self._write = self.backend(self._write_id)

    # -- the backends ------------------------------------------------------------------

    @property
    def backend_ids(self) -> tuple[str, ...]:
        """The configured backend ids, in configuration order."""
        return tuple(self._backends)

    @property
    def default_backend_id(self) -> str:
        return self._default_id

    @property
    def write_backend_id(self) -> str:
        return self._write_id

    @property
    def is_scoped(self) -> bool:
        """Whether paths carry the ``storage://{backend_id}/`` prefix (more than one backend)."""
        return len(self._backends) > 1

    def backend(self, backend_id: str) -> ScopedBackend:
        """The backend instance itself; "" is the default one."""
        try:
            return self._backends[backend_id or self._default_id]
        except KeyError:
            raise UnknownBackendError(
                backend_id,
                f"unknown storage backend {backend_id!r}; known: {', '.join(self._backends)}",
            ) from None

    def for_backend(self, backend_id: str) -> BackendScopedFileService:
        """The same service, writing to ``backend_id`` ("" = the default backend)."""
        self.backend(backend_id)
        if (backend_id or self._default_id) == self._write_id:
            return self
        return BackendScopedFileService(
            self._backends, self._default_id, write_backend_id=backend_id
        )

    def wrap(self, backend_id: str, inner_path: str) -> str:
        """The path a caller stores for ``inner_path`` of ``backend_id``."""
        self.backend(backend_id)
        return f"{self._prefix(backend_id or self._default_id)}{inner_path}"

    def unwrap(self, path: str) -> tuple[str, str]:
        """(backend id, the backend's own path) for any path this service handed out."""
        if path.startswith(SCHEME):
            backend_id, slash, inner = path[len(SCHEME) :].partition("/")
            if not slash or not inner or not BACKEND_ID_PATTERN.fullmatch(backend_id):
                raise UnsafePathError(f"malformed storage path {path!r}")
            if backend_id not in self._backends:
                raise UnknownBackendError(
                    backend_id,
                    f"{path!r} is on storage backend {backend_id!r}, which is not configured",
                )
            return backend_id, inner
        search = [self._default_id, *(b for b in self._backends if b != self._default_id)]
        claimants = [b for b in search if self._backends[b].owns(path)]
        if not claimants:
            raise UnsafePathError(f"no configured storage backend holds {path!r}")
        if len(claimants) > 1:
            for backend_id in claimants:
                if self._backends[backend_id].exists(path):
                    return backend_id, path
        return claimants[0], path

    def check_backends(self) -> dict[str, StorageError | None]:
        """Each backend's ``check_connectivity``: None when it passed, else the error."""
        results: dict[str, StorageError | None] = {}
        for backend_id, backend in self._backends.items():
            try:
                backend.check_connectivity()
            except StorageError as exc:
                results[backend_id] = exc
            else:
                results[backend_id] = None
        return results

    # -- FileService ---------------------------------------------------------------------

    def begin_upload(self, tenant_id: str, knowledge_id: str, file_name: str) -> Upload:
        upload = self._write.begin_upload(tenant_id, knowledge_id, file_name)
        prefix = self._prefix(self._write_id)
        return _WrappedUpload(upload, prefix) if prefix else upload

    def save_stream(
        self, tenant_id: str, knowledge_id: str, file_name: str, chunks: Iterable[bytes]
    ) -> StoredFile:
        stored = self._write.save_stream(tenant_id, knowledge_id, file_name, chunks)
        prefix = self._prefix(self._write_id)
        return StoredFile(path=prefix + stored.path, size=stored.size, md5=stored.md5)

    def save_bytes(self, tenant_id: str, file_name: str, data: bytes, *, temp: bool = False) -> str:
        path = self._write.save_bytes(tenant_id, file_name, data, temp=temp)
        return self._prefix(self._write_id) + path

    def open(self, path: str) -> BinaryIO:
        backend, inner = self._route(path)
        return backend.open(inner)

    def read_bytes(self, path: str) -> bytes:
        backend, inner = self._route(path)
        return backend.read_bytes(inner)

    def url(self, path: str) -> str:
        backend, inner = self._route(path)
        return backend.url(inner)

    def delete(self, path: str) -> None:
        backend, inner = self._route(path)
        backend.delete(inner)

    def copy(self, src_path: str, tenant_id: str, knowledge_id: str) -> str:
        source_id, inner = self.unwrap(src_path)
        if source_id != self._write_id:
            raise StorageError(
                f"cannot copy across storage backends ({source_id} → {self._write_id}): "
                "a copy stays inside one backend instance"
            )
        return self._prefix(source_id) + self._write.copy(inner, tenant_id, knowledge_id)

    def exists(self, path: str) -> bool:
        backend, inner = self._route(path)
        return backend.exists(inner)

    def check_connectivity(self) -> None:
        """Raise StorageError naming every backend whose check fails."""
        failed = {i: e for i, e in self.check_backends().items() if e is not None}
        if failed:
            raise StorageError("; ".join(f"{i}: {e}" for i, e in failed.items()))

    def _route(self, path: str) -> tuple[ScopedBackend, str]:
        backend_id, inner = self.unwrap(path)
        return self._backends[backend_id], inner

    def _prefix(self, backend_id: str) -> str:
        return f"{SCHEME}{backend_id}/" if self.is_scoped else ""
