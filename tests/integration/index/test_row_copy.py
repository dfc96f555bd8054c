"""Index rows copied under new owners (clone: new ids; move: same ids, new knowledge base),
against real milvus-lite in both modes, without embedding anything again."""

from __future__ import annotations

import uuid
from typing import Any

from storage.index.milvus_index import MilvusIndex, RowOwner
from tests.integration.index.conftest import MakeRow

X = [1.0, 0.0, 0.0, 0.0]
Y = [0.0, 1.0, 0.0, 0.0]
XY = [0.8, 0.6, 0.0, 0.0]
SOURCE: dict[str, Any] = {"tenant_ids": ["tenant-1"], "knowledge_base_ids": ["kb-1"]}
TARGET: dict[str, Any] = {"tenant_ids": ["tenant-1"], "knowledge_base_ids": ["kb-2"]}
CLONE = RowOwner(tenant_id="tenant-1", knowledge_base_id="kb-2", knowledge_ids={"k-1": "k-9"})


def _source_rows(index: MilvusIndex, model_key: str, make_row: MakeRow) -> None:
    index.upsert(
        model_key,
        [
            make_row("c1", X, content="apples grow on trees"),
            make_row("c1-0", XY, content="where do apples grow", chunk="c1", source_type="q"),
            make_row("c2", Y, content="bananas are yellow", enabled=False),
            make_row("c3", Y, content="cherries are red"),
        ],
    )


def test_clone_copies_vectors_and_keyword_weights_under_new_ids(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    _source_rows(index, model_key, make_row)

    written = index.copy_rows(model_key, {"c1": "n1", "c2": "n2"}, CLONE)

    assert written == 3
    assert index.ids_for_knowledge(model_key, "k-9") == ["n1", "n1-0", "n2"]
    assert index.chunk_ids_for_knowledge(model_key, "k-9") == ["n1", "n2"]
    # The source is untouched.
    assert index.ids_for_knowledge(model_key, "k-1") == ["c1", "c1-0", "c2", "c3"]
    # Same dense scores; the disabled row stays disabled; derived rows keep their type.
    source = index.search_dense(model_key, XY, **SOURCE, knowledge_ids=["k-1"], top_k=10)
    target = index.search_dense(model_key, XY, **TARGET, top_k=10)
    assert [(h.id, round(h.score, 5)) for h in target] == [
        (h.id.replace("c", "n"), round(h.score, 5)) for h in source if h.chunk_id == "c1"
    ]
    assert {h.knowledge_id for h in target} == {"k-9"}
    # The keyword side scores the same: the same weights over the same counted rows.
    index.copy_rows(model_key, {"c3": "n3"}, CLONE)
    index.set_enabled(model_key, ["c2", "n2"], True)
    source_kw = index.search_keyword(model_key, "apples grow", **SOURCE, top_k=10)
    target_kw = index.search_keyword(model_key, "apples grow", **TARGET, top_k=10)
    assert [round(h.score, 5) for h in target_kw] == [round(h.score, 5) for h in source_kw]
    assert [h.id for h in target_kw] == [h.id.replace("c", "n") for h in source_kw]


def test_a_retried_copy_writes_no_duplicates(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    _source_rows(index, model_key, make_row)
    index.copy_rows(model_key, {"c1": "n1"}, CLONE)
    index.copy_rows(model_key, {"c1": "n1"}, CLONE)
    assert index.count(model_key, "k-9") == 2


def test_move_keeps_ids_and_changes_the_knowledge_base_in_place(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    _source_rows(index, model_key, make_row)

    moved = RowOwner(tenant_id="tenant-1", knowledge_base_id="kb-2")
    assert index.copy_rows(model_key, {"c1": "c1", "c3": "c3"}, moved) == 3

    assert index.ids_for_knowledge(model_key, "k-1") == ["c1", "c1-0", "c2", "c3"]
    in_target = index.search_dense(model_key, X, **TARGET, top_k=10)
    assert sorted(h.id for h in in_target) == ["c1", "c1-0", "c3"]
    in_source = index.search_dense(model_key, X, **SOURCE, top_k=10)
    assert in_source == []  # c2, the only row left in kb-1, is disabled


def test_keyword_only_collection_and_nothing_to_copy(index: MilvusIndex, make_row: MakeRow) -> None:
    # The keyword-only collection is shared by every test on the server: ids of our own.
    key, tag = "keyword-only", uuid.uuid4().hex[:8]
    source, target = f"s{tag}", f"t{tag}"
    owner = RowOwner(tenant_id="tenant-1", knowledge_base_id=f"kb-{tag}")
    assert index.copy_rows(key, {source: target}, owner) == 0  # no such rows
    index.upsert(key, [make_row(source, [], content="plain words here")])
    assert index.copy_rows(key, {source: target}, owner) == 1
    assert index.copy_rows(key, {}, owner) == 0
    scope = {"tenant_ids": ["tenant-1"], "knowledge_base_ids": [f"kb-{tag}"]}
    hits = index.search_keyword(key, "plain words", **scope, top_k=5)
    assert [h.id for h in hits] == [target]
