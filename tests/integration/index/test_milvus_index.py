"""MilvusIndex against real milvus-lite, in-process (file) and as a server (http)."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pymilvus import MilvusClient

from storage.index.collection_schema import TEXT_MAX_BYTES, legacy_collection_name
from storage.index.milvus_index import (
    IndexHit,
    IndexStoreError,
    IndexUnavailableError,
    MilvusIndex,
    collection_name,
)
from tests.integration.index.conftest import MakeRow
from tests.support.processes import PYTHONPATH, REPO, free_port, python
from workers.embedding.local_onnx import LocalOnnxEmbedder

X = [1.0, 0.0, 0.0, 0.0]
Y = [0.0, 1.0, 0.0, 0.0]
XY = [0.8, 0.6, 0.0, 0.0]


T1 = ["tenant-1"]
# The scope most tests search: tenant-1's kb-1.
KB1: dict[str, Any] = {"tenant_ids": T1, "knowledge_base_ids": ["kb-1"]}


def ids(hits: Sequence[IndexHit]) -> list[str]:
    return [hit.id for hit in hits]


def test_collection_name_is_a_valid_milvus_name() -> None:
    assert collection_name("local/all-MiniLM-L6-v2/384") == "sluice2_local_all_minilm_l6_v2_384"
    assert collection_name("openai/text-embedding-3-small/1536") == (
        "sluice2_openai_text_embedding_3_small_1536"
    )
    assert legacy_collection_name("local/all-MiniLM-L6-v2/384") == (
        "sluice_local_all_minilm_l6_v2_384"
    )
    long_name = collection_name("openai/" + "m" * 400 + "/8")
    assert len(long_name) == 255
    assert long_name != collection_name("openai/" + "m" * 401 + "/8")


def test_ensure_collection_is_idempotent_and_guards_the_dimension(
    index: MilvusIndex, index_uri: str, lock_dir: Path, model_key: str
) -> None:
    name = index.ensure_collection(model_key, 4)
    assert index.ensure_collection(model_key, 4) == name
    with pytest.raises(IndexStoreError, match="4-dimensional"):
        index.ensure_collection(model_key, 8)
    # A second instance has no cached knowledge of the collection.
    with MilvusIndex(index_uri, lock_dir=lock_dir) as other:
        assert other.ensure_collection(model_key, 4) == name
        with pytest.raises(IndexStoreError, match="4-dimensional"):
            other.ensure_collection(model_key, 8)


def test_upsert_twice_with_the_same_ids_does_not_duplicate(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    rows = [make_row(f"c{i}", X, content=f"first version {i}") for i in range(3)]
    index.upsert(model_key, rows)
    index.upsert(model_key, [make_row(f"c{i}", Y, content=f"second version {i}") for i in range(3)])

    assert index.count(model_key, "k-1") == 3
    assert index.ids_for_knowledge(model_key, "k-1") == ["c0", "c1", "c2"]
    hits = index.search_dense(model_key, Y, **KB1, top_k=10)
    assert sorted(h.content for h in hits) == [f"second version {i}" for i in range(3)]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_upsert_writes_more_rows_than_one_batch(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    rows = [make_row(f"r{i:04d}", [1.0, i / 1200, 0.0, 0.0]) for i in range(1200)]
    index.upsert(model_key, rows)
    assert index.count(model_key, "k-1") == 1200
    assert len(index.ids_for_knowledge(model_key, "k-1")) == 1200


def test_dense_search_is_scoped_by_knowledge_base_knowledge_and_enabled(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("a", X, kb="kb-1", knowledge="k-1"),
            make_row("b", XY, kb="kb-1", knowledge="k-2"),
            make_row("c", X, kb="kb-2", knowledge="k-3"),
            make_row("d", X, kb="kb-1", knowledge="k-1", enabled=False),
        ],
    )

    assert ids(index.search_dense(model_key, X, **KB1)) == ["a", "b"]
    kb2 = index.search_dense(model_key, X, tenant_ids=T1, knowledge_base_ids=["kb-2"])
    assert ids(kb2) == ["c"]
    both_kbs = index.search_dense(
        model_key, X, tenant_ids=T1, knowledge_base_ids=["kb-1", "kb-2"], top_k=2
    )
    assert set(ids(both_kbs)) == {"a", "c"}
    assert ids(index.search_dense(model_key, X, **KB1, knowledge_ids=["k-2"])) == ["b"]
    assert index.search_dense(model_key, X, tenant_ids=T1, knowledge_base_ids=[]) == []
    assert index.search_dense(model_key, X, **KB1, knowledge_ids=[]) == []
    hit = index.search_dense(model_key, XY, **KB1, knowledge_ids=["k-2"])[0]
    assert (hit.chunk_id, hit.knowledge_id, hit.knowledge_base_id) == ("b", "k-2", "kb-1")
    assert hit.content == "content of b"
    assert hit.score == pytest.approx(1.0, abs=1e-5)


def test_set_enabled_hides_and_restores_a_chunk_and_its_derived_rows(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("c1", X, chunk="c1"),
            make_row("c1-1", XY, chunk="c1", source_type="question"),
            make_row("c2", Y, chunk="c2"),
        ],
    )

    index.set_enabled(model_key, ["c1"], False)
    assert ids(index.search_dense(model_key, X, **KB1)) == ["c2"]
    assert index.count(model_key, "k-1") == 3  # disabled, not deleted

    index.set_enabled(model_key, ["c1"], True)
    assert ids(index.search_dense(model_key, X, **KB1)) == ["c1", "c1-1", "c2"]
    hits = index.search_keyword(model_key, "content", **KB1)
    assert len(hits) == 3  # the partial update kept the BM25 terms


def test_delete_by_knowledge_removes_only_that_knowledge(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("a1", X, knowledge="k-a"),
            make_row("a2", XY, knowledge="k-a"),
            make_row("b1", X, knowledge="k-b"),
            make_row("c1", Y, knowledge="k-c"),
        ],
    )

    index.delete_by_knowledge(model_key, ["k-a", "k-c"])

    assert index.count(model_key, "k-a") == 0
    assert index.ids_for_knowledge(model_key, "k-c") == []
    assert index.count(model_key, "k-b") == 1
    assert ids(index.search_dense(model_key, X, **KB1)) == ["b1"]
    assert index.search_keyword(model_key, "a1", **KB1) == []


def test_an_unknown_model_has_nothing_indexed(index: MilvusIndex) -> None:
    model_key = "test/never-written/4"
    assert index.search_dense(model_key, X, **KB1) == []
    assert index.search_keyword(model_key, "anything", **KB1) == []
    assert index.search_hybrid(model_key, X, "anything", **KB1) == []
    assert index.count(model_key, "k-1") == 0
    assert index.ids_for_knowledge(model_key, "k-1") == []
    index.delete_by_knowledge(model_key, ["k-1"])
    index.set_enabled(model_key, ["c1"], False)


def test_filter_values_with_quotes_and_backslashes_are_escaped(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    tricky_kb = 'kb"1\\" or is_enabled == false or "'
    tricky_knowledge = "k'2\\\n"
    index.upsert(
        model_key,
        [
            make_row("t", X, kb=tricky_kb, knowledge=tricky_knowledge),
            make_row("u", X, kb="kb-1"),
        ],
    )

    tricky = index.search_dense(model_key, X, tenant_ids=T1, knowledge_base_ids=[tricky_kb])
    assert ids(tricky) == ["t"]
    assert index.count(model_key, tricky_knowledge) == 1
    index.delete_by_knowledge(model_key, [tricky_knowledge])
    assert index.search_dense(model_key, X, tenant_ids=T1, knowledge_base_ids=[tricky_kb]) == []
    assert ids(index.search_dense(model_key, X, **KB1)) == ["u"]


@pytest.mark.parametrize(
    ("documents", "query", "expected"),
    [
        pytest.param(
            {"en-1": "The indexed documents describe invoices.", "en-2": "Weather today."},
            "document invoice",
            "en-1",
            id="english-stemming",
        ),
        pytest.param(
            {
                "ru-1": "Архив содержит документы и отчёты.",
                "ru-2": "Поиск по базе знаний работает быстро.",
            },
            "документов",
            "ru-1",
            id="russian-stemming",
        ),
        pytest.param(
            {"ru-3": "Отчеты за квартал", "ru-4": "Документ без даты"},
            "отчётами",
            "ru-3",
            id="russian-yo",
        ),
        pytest.param(
            {"zh-1": "我们喜欢机器学习和深度学习。", "zh-2": "今天天气很好\uff0c适合散步。"},
            "机器学习",
            "zh-1",
            id="chinese-word",
        ),
        pytest.param(
            {"zh-3": "数据库索引提高查询速度", "zh-4": "索引的天气"},
            "查询",
            "zh-3",
            id="chinese-inside-a-run",
        ),
    ],
)
def test_keyword_search_per_language(
    index: MilvusIndex,
    model_key: str,
    make_row: MakeRow,
    documents: dict[str, str],
    query: str,
    expected: str,
) -> None:
    index.upsert(
        model_key, [make_row(row_id, X, content=text) for row_id, text in documents.items()]
    )

    hits = index.search_keyword(model_key, query, **KB1)

    assert ids(hits) == [expected]
    assert hits[0].content == documents[expected]
    assert hits[0].score > 0


def test_keyword_search_ranks_better_matches_first_and_respects_scope(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("both", X, content="milvus index search engine"),
            make_row("one", X, content="search party"),
            make_row("other-kb", X, content="milvus index search", kb="kb-2"),
            make_row("off", X, content="milvus index search", enabled=False),
        ],
    )

    hits = index.search_keyword(model_key, "Milvus search!", **KB1)

    assert ids(hits) == ["both", "one"]
    assert hits[0].score > hits[1].score > 0
    assert index.search_keyword(model_key, "?!", **KB1) == []


def test_hybrid_search_fuses_dense_and_keyword_rankings(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row("dense-only", X, content="nothing in common"),
            make_row("keyword-only", [-1.0, 0.0, 0.0, 0.0], content="quarterly revenue report"),
            make_row("both", XY, content="revenue report forecast"),
            make_row("neither", [0.0, 0.0, 0.0, 1.0], content="holiday pictures"),
        ],
    )

    hits = index.search_hybrid(model_key, X, "revenue report", **KB1, top_k=3)

    assert set(ids(hits)) == {"dense-only", "keyword-only", "both"}
    # "both" is second by vector and matches as well as "keyword-only" by keyword, which is
    # the farthest vector: fused, "both" wins.
    assert ids(hits) == ["both", "keyword-only", "dense-only"]
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # Without keyword terms the fusion runs on the dense ranking alone.
    assert ids(index.search_hybrid(model_key, X, "...", **KB1, top_k=1)) == ["dense-only"]


def test_long_content_is_cut_to_the_field_limit(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    text = "слово " * 12_000  # 132 000 bytes of UTF-8
    index.upsert(model_key, [make_row("long", X, content=text)])

    hit = index.search_keyword(model_key, "слова", **KB1)[0]
    assert hit.id == "long"
    assert len(hit.content.encode("utf-8")) <= TEXT_MAX_BYTES
    assert text.startswith(hit.content)


def test_rows_with_mixed_dimensions_are_rejected(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    with pytest.raises(IndexStoreError, match="3-dimensional"):
        index.upsert(model_key, [make_row("a", X), make_row("b", [1.0, 0.0, 0.0])])
    index.upsert(model_key, [make_row("a", X)])
    with pytest.raises(IndexStoreError):
        index.upsert(model_key, [make_row("b", [1.0, 0.0, 0.0])])
    assert index.ids_for_knowledge(model_key, "k-1") == ["a"]


def test_a_released_collection_is_loaded_again(
    index: MilvusIndex, index_uri: str, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(model_key, [make_row("a", X)])
    if index_uri.startswith("http"):
        raw = MilvusClient(uri=index_uri)
        try:
            raw.release_collection(collection_name(model_key))
        finally:
            raw.close()
        assert ids(index.search_dense(model_key, X, **KB1)) == ["a"]
    else:
        index.close()
        with MilvusIndex(index_uri) as reopened:  # milvus-lite reopens collections released
            assert ids(reopened.search_dense(model_key, X, **KB1)) == ["a"]
            assert reopened.count(model_key, "k-1") == 1


def test_closed_index_refuses_work(index: MilvusIndex, model_key: str) -> None:
    index.close()
    index.close()
    with pytest.raises(IndexStoreError, match="closed"):
        index.search_dense(model_key, X, **KB1)


def test_bad_uri_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(IndexStoreError, match=r"\.db"):
        MilvusIndex(str(tmp_path / "milvus.sqlite"))


_OPEN_SCRIPT = """
import sys
from storage.index.milvus_index import IndexUnavailableError, MilvusIndex
try:
    MilvusIndex(sys.argv[1], timeout=10).close()
except IndexUnavailableError as exc:
    print("unavailable:", exc)
"""


def test_a_second_process_cannot_open_a_held_file(tmp_path: Path) -> None:
    uri = str(tmp_path / "held.db")
    with MilvusIndex(uri) as index:
        assert index.is_lite
        result = subprocess.run(
            python("-c", _OPEN_SCRIPT, uri),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": PYTHONPATH},
        )
    assert result.returncode == 0, result.stderr
    assert "unavailable:" in result.stdout
    assert "milvus-lite server" in result.stdout  # tells the operator what to do instead


_RACE_SCRIPT = """
import sys, time
from pathlib import Path
from storage.index.milvus_index import IndexRow, MilvusIndex
uri, lock_dir, model_key, prefix, start_at = sys.argv[1:6]
with MilvusIndex(uri, lock_dir=Path(lock_dir)) as index:
    time.sleep(max(0.0, float(start_at) - time.time()))  # start both writers together
    index.ensure_collection(model_key, 4)
    for batch in range(10):
        index.upsert(model_key, [
            IndexRow(id=f"{prefix}-{batch}-{i}", tenant_id="t", knowledge_base_id="kb-1",
                     knowledge_id="k-race", chunk_id=f"{prefix}-{batch}-{i}",
                     source_type="chunk", is_enabled=True, content=f"row {i}",
                     keyword_text=f"row {i}", vector=[1.0, float(i), 0.0, 0.0])
            for i in range(20)
        ])
        index.delete_by_knowledge(model_key, [f"k-none-{prefix}"])
print("done")
"""


def test_processes_racing_to_create_and_write_a_collection_both_succeed(
    milvus_server_uri: str, lock_dir: Path, model_key: str
) -> None:
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    start_at = str(time.time() + 3.0)
    workers = [
        subprocess.Popen(
            python(
                "-c", _RACE_SCRIPT, milvus_server_uri, str(lock_dir), model_key, prefix, start_at
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        for prefix in ("p1", "p2")
    ]
    outputs = [worker.communicate(timeout=180) for worker in workers]
    for worker, (out, err) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, err
        assert out.strip() == "done"
    with MilvusIndex(milvus_server_uri, lock_dir=lock_dir) as index:
        assert index.count(model_key, "k-race") == 400


def test_search_and_delete_keep_to_the_tenant(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    # Two tenants with the same knowledge base id: only the tenant named in the call counts.
    index.upsert(
        model_key,
        [
            make_row("mine", X, content="shared words"),
            make_row("theirs", X, content="shared words", tenant="tenant-2"),
        ],
    )
    assert ids(index.search_dense(model_key, X, **KB1)) == ["mine"]
    assert ids(
        index.search_keyword(
            model_key, "shared", tenant_ids=["tenant-2"], knowledge_base_ids=["kb-1"]
        )
    ) == ["theirs"]
    assert ids(index.search_hybrid(model_key, X, "shared", **KB1)) == ["mine"]
    assert index.search_dense(model_key, X, tenant_ids=[], knowledge_base_ids=["kb-1"]) == []
    index.delete_by_tenant(model_key, "tenant-2")
    both = ["tenant-1", "tenant-2"]
    assert ids(index.search_dense(model_key, X, tenant_ids=both, knowledge_base_ids=["kb-1"])) == [
        "mine"
    ]


def test_unreachable_server_is_reported_as_unavailable() -> None:
    with pytest.raises(IndexUnavailableError):
        MilvusIndex(f"http://127.0.0.1:{free_port()}", timeout=2)


def test_real_model_vectors_find_the_meaning(tmp_path: Path, make_row: MakeRow) -> None:
    embedder = LocalOnnxEmbedder(intra_op_num_threads=2)
    texts = {
        "food": "We cooked pasta with tomato sauce for dinner.",
        "finance": "The stock market fell sharply after the bank collapsed.",
        "sport": "The football team won the championship final.",
    }
    vectors = embedder.embed_documents(list(texts.values()))
    with MilvusIndex(str(tmp_path / "model.db")) as index:
        index.upsert(
            embedder.model_key,
            [
                make_row(row_id, vector, content=text)
                for (row_id, text), vector in zip(texts.items(), vectors, strict=True)
            ],
        )
        query = "what did they eat in the evening?"
        dense = index.search_dense(embedder.model_key, embedder.embed_query(query), **KB1, top_k=3)
        assert dense[0].id == "food"
        assert dense[0].score > dense[1].score + 0.1
        hybrid = index.search_hybrid(
            embedder.model_key,
            embedder.embed_query("stock crash"),
            "stock crash",
            **KB1,
            top_k=3,
        )
        assert hybrid[0].id == "finance"
