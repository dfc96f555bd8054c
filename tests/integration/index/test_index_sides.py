"""The index's one-sided rows (core.index_sides): the keyword-only collection has no dense
field and finds rows by BM25; dense-only rows carry no BM25 terms, so keyword search never
finds them nor counts them among the rows its idf is taken over; the no-index key writes and
finds nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from core.index_sides import KEYWORD_ONLY_KEY, NO_INDEX_KEY
from storage.index.collection_schema import collection_name
from storage.index.milvus_index import IndexHit, IndexStoreError, MilvusIndex
from tests.integration.index.conftest import MakeRow


def _keyword(
    index: MilvusIndex, key: str, query: str, kbs: Sequence[str] = ("kb-1",)
) -> list[IndexHit]:
    return index.search_keyword(key, query, tenant_ids=["tenant-1"], knowledge_base_ids=kbs)


def _dense(index: MilvusIndex, key: str, vector: list[float]) -> list[IndexHit]:
    return index.search_dense(key, vector, tenant_ids=["tenant-1"], knowledge_base_ids=["kb-1"])


def test_the_keyword_only_collection_has_no_vectors_and_finds_by_keyword(
    index: MilvusIndex, make_row: MakeRow
) -> None:
    name = index.ensure_collection(KEYWORD_ONLY_KEY, 0)
    fields = {f["name"] for f in index._client.describe_collection(name)["fields"]}
    assert "dense" not in fields and "sparse" in fields
    # A caller that embedded anyway (a chunk edit) has its vector dropped, not refused.
    rows = [
        make_row("r1", [], content="the sluice gate calibration log"),
        make_row("r2", [1.0, 0.0, 0.0, 0.0], content="an unrelated paragraph"),
    ]
    index.upsert(KEYWORD_ONLY_KEY, rows)
    hits = _keyword(index, KEYWORD_ONLY_KEY, "calibration")
    assert [h.id for h in hits] == ["r1"]
    with pytest.raises(IndexStoreError, match="no vectors"):
        _dense(index, KEYWORD_ONLY_KEY, [1.0, 0.0, 0.0, 0.0])
    index.delete_by_knowledge(KEYWORD_ONLY_KEY, ["k-1"])
    assert index.count(KEYWORD_ONLY_KEY, "k-1") == 0


def test_a_vector_key_refuses_the_keyword_only_dimension(index: MilvusIndex) -> None:
    with pytest.raises(IndexStoreError, match="invalid vector dimension"):
        index.ensure_collection("test/x/4", 0)
    with pytest.raises(IndexStoreError, match="invalid vector dimension"):
        index.ensure_collection(KEYWORD_ONLY_KEY, 4)


def test_dense_only_rows_have_no_keyword_side(
    index: MilvusIndex, make_row: MakeRow, model_key: str
) -> None:
    keyword_off = [
        replace(make_row(row_id, vector, content=text), keyword_indexed=False)
        for row_id, vector, text in (
            ("d1", [1.0, 0.0, 0.0, 0.0], "calibration"),
            ("d2", [0.0, 1.0, 0.0, 0.0], "other"),
        )
    ]
    index.upsert(model_key, keyword_off)
    assert _keyword(index, model_key, "calibration") == []
    assert _dense(index, model_key, [1.0, 0.0, 0.0, 0.0])[0].id == "d1"
    # Rows with keywords beside them: the keyword-less rows do not count in their idf.
    index.upsert(
        model_key, [make_row("k1", [0.0, 0.0, 1.0, 0.0], kb="kb-2", content="calibration")]
    )
    hits = _keyword(index, model_key, "calibration", ["kb-1", "kb-2"])
    alone = _keyword(index, model_key, "calibration", ["kb-2"])
    assert [h.id for h in hits] == ["k1"] and hits[0].score == pytest.approx(alone[0].score)


def test_the_no_index_key_writes_and_finds_nothing(index: MilvusIndex, make_row: MakeRow) -> None:
    index.upsert(NO_INDEX_KEY, [make_row("n1", [1.0, 0.0, 0.0, 0.0])])
    index.delete_by_chunk_ids(NO_INDEX_KEY, ["n1"])
    index.set_enabled(NO_INDEX_KEY, ["n1"], False)
    assert _keyword(index, NO_INDEX_KEY, "content") == []
    assert index.count(NO_INDEX_KEY, "k-1") == 0
    assert collection_name(KEYWORD_ONLY_KEY) == "sluice2_keyword_only"
