"""The index in both of its modes: milvus-lite in this process on a `.db` directory, and the
shared `milvus-lite server` child process (``milvus_server_uri``) reached over http."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from storage.index.milvus_index import IndexRow, MilvusIndex

MODES = ("file", "server")


@pytest.fixture(scope="module")
def lock_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the processes writing through the test server take their write locks."""
    return tmp_path_factory.mktemp("index-locks")


@pytest.fixture(params=MODES)
def index_uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "file":
        return str(tmp_path / "index" / "milvus.db")
    uri: str = request.getfixturevalue("milvus_server_uri")
    return uri


@pytest.fixture
def index(index_uri: str, lock_dir: Path) -> Iterator[MilvusIndex]:
    milvus_index = MilvusIndex(index_uri, lock_dir=lock_dir)
    try:
        yield milvus_index
    finally:
        milvus_index.close()


@pytest.fixture
def model_key() -> str:
    """A fresh collection per test, so tests sharing the server do not see each other's rows."""
    return f"test/{uuid.uuid4().hex[:12]}/4"


MakeRow = Callable[..., IndexRow]


@pytest.fixture
def make_row() -> MakeRow:
    def make(
        row_id: str,
        vector: list[float],
        *,
        content: str = "",
        kb: str = "kb-1",
        knowledge: str = "k-1",
        chunk: str | None = None,
        enabled: bool = True,
        source_type: str = "chunk",
        tenant: str = "tenant-1",
        keyword_text: str | None = None,
    ) -> IndexRow:
        text = content or f"content of {row_id}"
        return IndexRow(
            id=row_id,
            tenant_id=tenant,
            knowledge_base_id=kb,
            knowledge_id=knowledge,
            chunk_id=chunk or row_id,
            source_type=source_type,
            is_enabled=enabled,
            content=text,
            keyword_text=text if keyword_text is None else keyword_text,
            vector=vector,
        )

    return make
