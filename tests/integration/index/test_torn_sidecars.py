"""A milvus-lite directory whose process was killed while it wrote an index sidecar opens
again, with every row still found: the torn sidecar is removed before the directory is
opened and milvus-lite builds it anew; a directory another process holds is left alone."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from storage.index.lite_repair import remove_torn_sidecars
from storage.index.milvus_index import MilvusIndex
from tests.integration.index.conftest import MakeRow

MODEL_KEY = "test/torn/4"


def _filled(path: Path, make_row: MakeRow) -> list[Path]:
    """A collection of ten rows, flushed into a segment with its sidecars; the sidecars."""
    with MilvusIndex(str(path)) as index:
        index.upsert(
            MODEL_KEY,
            [make_row(f"r{n}", [1.0, float(n), 0.0, 0.0], content=f"row {n}") for n in range(10)],
        )
    sidecars = sorted(path.glob("collections/*/partitions/*/indexes/*"))
    assert {p.suffix for p in sidecars} == {".idx", ".sidx"}
    return sidecars


@pytest.mark.parametrize("torn", ["empty scalar", "half scalar", "half vectors"])
def test_a_torn_sidecar_is_rebuilt_and_every_row_found(
    tmp_path: Path, make_row: MakeRow, torn: str
) -> None:
    path = tmp_path / "milvus.db"
    sidecars = _filled(path, make_row)
    kind = ".idx" if torn == "half vectors" else ".sidx"
    victim = next(p for p in sidecars if p.suffix == kind)
    whole = victim.read_bytes()
    victim.write_bytes(b"" if torn.startswith("empty") else whole[: len(whole) // 2])

    with MilvusIndex(str(path)) as index:
        assert index.count(MODEL_KEY, "k-1") == 10
        assert sorted(index.ids_for_knowledge(MODEL_KEY, "k-1")) == sorted(
            f"r{n}" for n in range(10)
        )
    assert victim.read_bytes() == whole, "milvus-lite built the sidecar again"


def test_whole_sidecars_and_a_directory_in_use_are_left_alone(
    tmp_path: Path, make_row: MakeRow
) -> None:
    path = tmp_path / "milvus.db"
    sidecars = _filled(path, make_row)
    assert remove_torn_sidecars(str(path)) == []

    sidecars[0].write_bytes(b"")
    fd = os.open(path / "LOCK", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert remove_torn_sidecars(str(path)) == [], "another process holds the directory"
    finally:
        os.close(fd)
    assert remove_torn_sidecars(str(path)) == [sidecars[0]]
    assert remove_torn_sidecars(str(tmp_path / "missing.db")) == []
