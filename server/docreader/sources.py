"""Where a request's file comes from: inline content (written to the read's work directory)
or a file under the storage base dir (read in place). Parsers always get a path.

Accepted storage references: ``local://<key>``, ``storage://local/<key>`` and a bare
``<key>``. The key is relative; absolute paths, ``..`` segments, NUL bytes and symlinks that
lead outside the base directory are rejected.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import (
    InvalidRequestError,
    SourceNotFoundError,
    StorageNotConfiguredError,
    UnsupportedSourceError,
)

_PREFIXES = ("local://", "storage://local/")


def request_source(
    request: docreader_pb2.ReadRequest, storage_base_dir: Path | None, work_dir: Path
) -> Path:
    source = request.WhichOneof("source")
    if source == "file_content":
        path = work_dir / "inline"
        path.write_bytes(request.file_content)
        return path
    if source == "storage_ref":
        return resolve_storage_ref(storage_base_dir, request.storage_ref)
    if source == "url":
        raise UnsupportedSourceError("reading from a URL is not implemented yet")
    raise InvalidRequestError("the request has no source: set file_content or storage_ref")


def resolve_storage_ref(base_dir: Path | None, ref: str) -> Path:
    if base_dir is None:
        raise StorageNotConfiguredError(
            "this docreader has no storage base directory, so it cannot open storage_ref"
        )
    key = _key(ref)
    base = base_dir.resolve()
    path = (base / key).resolve()
    if not path.is_relative_to(base):
        raise InvalidRequestError(f"storage_ref {ref!r} leads outside the storage directory")
    if not path.is_file():
        raise SourceNotFoundError(f"storage_ref {ref!r} names no file")
    return path


def _key(ref: str) -> str:
    key = ref
    for prefix in _PREFIXES:
        if ref.startswith(prefix):
            key = ref[len(prefix) :]
            break
    else:
        if "://" in ref:
            raise InvalidRequestError(
                f"unsupported storage_ref {ref!r}: use local://<key> or storage://local/<key>"
            )
    parts = PurePosixPath(key.replace("\\", "/")).parts
    if not key or "\x00" in key or key.startswith(("/", "\\")) or ".." in parts:
        raise InvalidRequestError(f"invalid storage_ref {ref!r}: the key must be relative")
    return key
