"""Opening and closing a MilvusClient for a URI, and the write locks per collection.

A local path (`./data/milvus.db`) runs milvus-lite inside this process: pymilvus starts an
in-process gRPC server that holds the data directory's lock until it is released. That server
is shared by every client on the same path, so it is released only when the last of our
connections to it closes (pymilvus itself would keep it until the process exits).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import grpc
from milvus_lite.server_manager import server_manager_instance
from pymilvus import MilvusClient, MilvusException, MilvusUnavailableException
from pymilvus.exceptions import ConnectError, ConnectionConfigException

from storage.index.errors import IndexStoreError, IndexUnavailableError
from storage.index.lite_repair import remove_torn_sidecars

_REMOTE_SCHEMES = frozenset({"http", "https", "tcp", "grpc", "unix"})
_CONNECT_FAILED = 2  # pymilvus Status.CONNECT_FAILED
# pymilvus pings every 10 s; milvus-lite's gRPC server (grpc defaults) allows one ping per
# 5 minutes and answers more with GOAWAY too_many_pings, dropping the connection (and
# logging it raw on stderr). Above 5 minutes both it and a Milvus server accept.
_KEEPALIVE = {"grpc.keepalive_time_ms": 330_000, "grpc.keepalive_permit_without_calls": False}
# The gRPC statuses of a server that did not answer in time or at all.
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})

# Every process writing through one milvus-lite server must use the same directory.
DEFAULT_LOCK_DIR = Path(tempfile.gettempdir()) / "sluice-index-locks"

_registry_lock = threading.Lock()
_local_users: dict[str, int] = {}
_write_locks: dict[tuple[str, str], threading.Lock] = {}


@dataclass(frozen=True)
class Connection:
    client: MilvusClient
    # Server build string, e.g. "milvus_lite-3.2.2" or "v2.6.4".
    server_version: str
    local_path: str | None

    @property
    def is_lite(self) -> bool:
        return self.server_version.startswith("milvus_lite")


def local_path_of(uri: str) -> str | None:
    """The absolute data directory for a milvus-lite file URI, None for a server URI."""
    if urlparse(uri).scheme.lower() in _REMOTE_SCHEMES:
        return None
    if not uri.endswith(".db"):
        raise IndexStoreError(
            f"index URI {uri!r} is neither a server URI (http://host:port) "
            "nor a milvus-lite path ending in .db"
        )
    return os.path.abspath(uri)


def open_connection(uri: str, *, token: str, timeout: float | None) -> Connection:
    local_path = local_path_of(uri)
    if local_path is not None:
        Path(local_path).parent.mkdir(parents=True, exist_ok=True)
        with _registry_lock:
            first = not _local_users.get(local_path)
            _local_users[local_path] = _local_users.get(local_path, 0) + 1
            if first:
                # Before this process's milvus-lite opens it (lite_repair says why).
                remove_torn_sidecars(local_path)
    try:
        client = MilvusClient(
            uri=local_path or uri, token=token, timeout=timeout, grpc_options=_KEEPALIVE
        )
        try:
            version = str(client.get_server_version())
        except BaseException:
            client.close()
            raise
    except BaseException as exc:
        if local_path is not None:
            _release_local(local_path)
        if not isinstance(exc, MilvusException):
            raise
        hint = (
            " (another process may hold this milvus-lite directory: run `milvus-lite server` "
            "and connect every process to it over http)"
            if local_path is not None
            else ""
        )
        raise IndexUnavailableError(f"cannot open index at {uri}: {exc.message}{hint}") from exc
    return Connection(client=client, server_version=version, local_path=local_path)


def local_server_port(connection: Connection) -> int | None:
    """The loopback port of the gRPC server pymilvus started for a milvus-lite file (the
    server already runs, so this only looks it up); None for a server URI."""
    if connection.local_path is None:
        return None
    uri = server_manager_instance.start_and_get_uri(connection.local_path)
    return urlparse(uri).port if uri else None


def close_connection(connection: Connection) -> None:
    connection.client.close()
    if connection.local_path is not None:
        _release_local(connection.local_path)


def _release_local(local_path: str) -> None:
    with _registry_lock:
        users = _local_users.get(local_path, 0) - 1
        if users > 0:
            _local_users[local_path] = users
            return
        _local_users.pop(local_path, None)
    server_manager_instance.release_server(local_path)


def is_unavailable(exc: MilvusException) -> bool:
    """A connection or timeout failure (retrying later may succeed), not a refused request.
    pymilvus gives up on a call it retried with the gRPC status as the code."""
    return (
        isinstance(exc, MilvusUnavailableException | ConnectError | ConnectionConfigException)
        or exc.code == _CONNECT_FAILED
        or exc.code in _UNREACHABLE
    )


def rpc_unavailable(exc: grpc.RpcError) -> bool:
    """The same for the gRPC error pymilvus hands up unwrapped (a deadline, say)."""
    return isinstance(exc, grpc.Call) and exc.code() in _UNREACHABLE


@contextmanager
def write_lock(scope: str, collection: str, *, lock_dir: Path | None) -> Iterator[None]:
    """Serialise writes to one collection: between this process's threads always, and between
    the processes of this machine through a file in `lock_dir` when one is given (a shared
    milvus-lite server corrupts a collection's write sequence when two requests write or
    flush it at once)."""
    with _registry_lock:
        lock = _write_locks.setdefault((scope, collection), threading.Lock())
    with lock:
        if lock_dir is None:
            yield
            return
        lock_dir.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha1(scope.encode("utf-8")).hexdigest()[:16]
        with open(lock_dir / f"{digest}-{collection}.lock", "a+b") as handle:
            # flock is dropped by the kernel if the holder dies, so no lock outlives its process.
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def lock_scope(uri: str) -> str:
    """One name per index, however its URI is spelled (`localhost` is `127.0.0.1`)."""
    local_path = local_path_of(uri)
    if local_path is not None:
        return local_path
    parsed = urlparse(uri)
    host = (parsed.hostname or "").lower()
    if host == "localhost":
        host = "127.0.0.1"
    return f"{parsed.scheme.lower()}://{host}:{parsed.port or 19530}"
