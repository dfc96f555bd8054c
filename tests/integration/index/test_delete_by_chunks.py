"""Removing one processing round's index rows by its chunk ids, in both index modes."""

from __future__ import annotations

from storage.index.milvus_index import MilvusIndex
from tests.integration.index.conftest import MakeRow

X = [1.0, 0.0, 0.0, 0.0]
Y = [0.0, 1.0, 0.0, 0.0]


def test_delete_by_chunk_ids_removes_those_chunks_and_their_derived_rows_only(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("old-0", X, knowledge="k-1"),
            make_row("old-0-question", Y, knowledge="k-1", chunk="old-0", source_type="question"),
            make_row("old-1", X, knowledge="k-1"),
            make_row("new-0", Y, knowledge="k-1"),
            make_row("other-0", X, knowledge="k-2"),
        ],
    )

    index.delete_by_chunk_ids(model_key, ["old-0", "old-1", "never-indexed"])

    assert index.ids_for_knowledge(model_key, "k-1") == ["new-0"]
    assert index.ids_for_knowledge(model_key, "k-2") == ["other-0"]


def test_delete_by_chunk_ids_in_many_batches_and_of_nothing(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    rows = [make_row(f"c-{n}", X if n % 2 else Y) for n in range(1200)]
    index.upsert(model_key, rows)

    index.delete_by_chunk_ids(model_key, [])
    index.delete_by_chunk_ids(model_key, [f"c-{n}" for n in range(1199)])
    index.delete_by_chunk_ids("test/never-written/4", ["c-1"])

    assert index.ids_for_knowledge(model_key, "k-1") == ["c-1199"]
