"""Storage references resolve only to files under the storage base directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import (
    InvalidRequestError,
    SourceNotFoundError,
    StorageNotConfiguredError,
    UnsupportedSourceError,
)
from server.docreader.sources import request_source, resolve_storage_ref


@pytest.fixture()
def base(tmp_path: Path) -> Path:
    (tmp_path / "store" / "tenant").mkdir(parents=True)
    (tmp_path / "store" / "tenant" / "doc.txt").write_text("stored")
    (tmp_path / "secret.txt").write_text("outside")
    (tmp_path / "store" / "escape").symlink_to(tmp_path / "secret.txt")
    return tmp_path / "store"


@pytest.mark.parametrize(
    "ref",
    [
        "local://tenant/doc.txt",
        "storage://local/tenant/doc.txt",
        "tenant/doc.txt",
        "local://tenant/./doc.txt",
    ],
)
def test_references_resolve_under_the_base(base: Path, ref: str) -> None:
    assert resolve_storage_ref(base, ref) == (base / "tenant" / "doc.txt").resolve()


@pytest.mark.parametrize(
    "ref",
    [
        "local://../secret.txt",
        "local:///etc/passwd",
        "/etc/passwd",
        "local://tenant/../../secret.txt",
        "local://",
        "a\x00b",
        "s3://bucket/key",
        "local://escape",
    ],
)
def test_escaping_or_malformed_references_are_rejected(base: Path, ref: str) -> None:
    with pytest.raises(InvalidRequestError):
        resolve_storage_ref(base, ref)


def test_missing_file_and_missing_base(base: Path) -> None:
    with pytest.raises(SourceNotFoundError):
        resolve_storage_ref(base, "local://tenant/none.txt")
    with pytest.raises(SourceNotFoundError):
        resolve_storage_ref(base, "local://tenant")
    with pytest.raises(StorageNotConfiguredError):
        resolve_storage_ref(None, "local://tenant/doc.txt")


def test_request_source_by_source(base: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    inline = docreader_pb2.ReadRequest(file_content=b"inline bytes")
    assert request_source(inline, None, work).read_bytes() == b"inline bytes"
    stored = docreader_pb2.ReadRequest(storage_ref="local://tenant/doc.txt")
    assert request_source(stored, base, work).read_bytes() == b"stored"
    with pytest.raises(UnsupportedSourceError):
        request_source(docreader_pb2.ReadRequest(url="https://example.com"), base, work)
    with pytest.raises(InvalidRequestError, match="no source"):
        request_source(docreader_pb2.ReadRequest(file_name="x.txt"), base, work)
