"""Keyword scores on real milvus-lite that depend only on the row and on the scope searched:
not on insertion order, segments, or what other knowledge bases hold."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from pymilvus import DataType, Function, FunctionType, MilvusClient

from storage.index.collection_schema import collection_name, legacy_collection_name
from storage.index.milvus_index import IndexHit, MilvusIndex
from tests.integration.index.conftest import MakeRow

X = [1.0, 0.0, 0.0, 0.0]
Y = [0.0, 1.0, 0.0, 0.0]
KB1: dict[str, Any] = {"tenant_ids": ["tenant-1"], "knowledge_base_ids": ["kb-1"]}

# kb-1: a single-chunk document naming a rare person, among documents that do not.
TARGET = "Dr. Wojciechowska signed the quarterly pump report."
NEIGHBOURS = [
    "The quarterly pump report lists every valve.",
    "Pump maintenance happens before the quarterly audit.",
    "Sluice gates are painted every spring.",
    "Wojciechowska reviewed the sluice gate logbook and the pump report twice.",
    # More rows holding "report" than term_counting counts exactly: its count is estimated.
    *(f"Monthly report number {i}." for i in range(120)),
]
QUERY = "Wojciechowska pump report"


def ids(hits: Sequence[IndexHit]) -> list[str]:
    return [hit.id for hit in hits]


def _rank_and_score(hits: Sequence[IndexHit], row_id: str) -> tuple[int, float]:
    for rank, hit in enumerate(hits, start=1):
        if hit.id == row_id:
            return rank, hit.score
    raise AssertionError(f"{row_id} not found in {ids(hits)}")


def test_a_documents_rank_and_score_do_not_depend_on_insertion_order_or_other_kbs(
    index: MilvusIndex, make_row: MakeRow
) -> None:
    neighbours = [
        make_row(f"n{i}", X, content=text, knowledge=f"k-n{i}") for i, text in enumerate(NEIGHBOURS)
    ]
    target = make_row("target", X, content=TARGET, knowledge="k-target")
    # Another knowledge base full of the rare name: with collection-wide statistics it would
    # make the name common and sink the target.
    crowd = [
        make_row(f"c{i}", Y, content=f"Wojciechowska note {i}", kb="kb-2", knowledge=f"k-c{i}")
        for i in range(40)
    ]

    first = f"test/{uuid.uuid4().hex[:12]}/4"
    index.upsert(first, [target])  # its own segment, written first and alone
    index.upsert(first, neighbours)

    last = f"test/{uuid.uuid4().hex[:12]}/4"
    index.upsert(last, crowd[:20])
    for start in reversed(range(0, len(neighbours), 7)):  # many segments, in reverse
        index.upsert(last, neighbours[start : start + 7][::-1])
    index.upsert(last, crowd[20:])
    index.upsert(last, [target])

    hits_first = index.search_keyword(first, QUERY, **KB1)
    hits_last = index.search_keyword(last, QUERY, **KB1)

    rank_first, score_first = _rank_and_score(hits_first, "target")
    rank_last, score_last = _rank_and_score(hits_last, "target")
    assert rank_first == rank_last == 1
    assert score_last == pytest.approx(score_first, rel=1e-6)
    # The rows that mention the name or the pump, in the same order; then the monthly
    # reports, which tie with each other.
    assert ids(hits_first)[:4] == ids(hits_last)[:4] == ["target", "n3", "n0", "n1"]
    assert [h.score for h in hits_last] == pytest.approx([h.score for h in hits_first], rel=1e-6)
    # kb-2's rows are neither found nor counted.
    assert not {h.knowledge_base_id for h in hits_last} - {"kb-1"}


def test_the_rare_term_weighs_the_same_in_every_document_holding_it(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    """The issue's symptom: one rare name scored 0.29 in one document and 5.05 in another,
    by the segment each landed in. Two identical rows in different segments score alike."""
    index.upsert(model_key, [make_row("a", X, content="Kowalczyk approved it", knowledge="k-a")])
    index.upsert(
        model_key,
        [  # another segment, where the name is one row in 31
            *[
                make_row(f"f{i}", X, content=f"filler text {i}", knowledge=f"k-f{i}")
                for i in range(30)
            ],
            make_row("b", X, content="Kowalczyk approved it", knowledge="k-b"),
        ],
    )

    hits = index.search_keyword(model_key, "Kowalczyk", **KB1)

    assert sorted(ids(hits)) == ["a", "b"]
    assert hits[0].score == pytest.approx(hits[1].score, rel=1e-6)


def test_idf_is_counted_over_the_knowledge_bases_searched(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    """A term common in kb-2 but rare in kb-1 is worth more when kb-1 alone is searched."""
    index.upsert(
        model_key,
        [
            make_row("rare", X, content="turbine inspection", kb="kb-1", knowledge="k-1"),
            *[make_row(f"k1-{i}", X, content=f"other text {i}", kb="kb-1") for i in range(5)],
            *[
                make_row(f"k2-{i}", X, content=f"turbine {i}", kb="kb-2", knowledge="k-2")
                for i in range(20)
            ],
        ],
    )

    alone = index.search_keyword(model_key, "turbine", **KB1)
    both = index.search_keyword(
        model_key,
        "turbine",
        tenant_ids=["tenant-1"],
        knowledge_base_ids=["kb-1", "kb-2"],
        top_k=30,
    )

    assert ids(alone) == ["rare"]
    assert _rank_and_score(both, "rare")[1] < alone[0].score


def test_keyword_text_carries_title_and_breadcrumbs(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    index.upsert(
        model_key,
        [
            make_row(
                "c",
                X,
                content="Close the valve first.",
                keyword_text="Hydraulics handbook\nEmergency shutdown\nClose the valve first.",
            ),
            make_row("d", X, content="Open the valve slowly."),
        ],
    )

    assert ids(index.search_keyword(model_key, "emergency shutdown handbook", **KB1)) == ["c"]
    # The content shown is the chunk's own.
    assert index.search_keyword(model_key, "handbook", **KB1)[0].content == (
        "Close the valve first."
    )


@pytest.mark.parametrize(
    ("documents", "query", "expected"),
    [
        pytest.param(
            {"ru-1": "Договор поставки подписан.", "ru-2": "Отчёт за май."},
            "договоров",
            "ru-1",
            id="russian-plural-query-singular-text",
        ),
        pytest.param(
            {"ru-3": "Насосы проверяют каждую весну.", "ru-4": "Шлюз открыт."},
            "насосом",
            "ru-3",
            id="russian-other-case",
        ),
        pytest.param(
            {"zh-1": "我是一名学生", "zh-2": "大学生活很有趣"},
            "学生",
            "zh-1",
            id="chinese-word-not-a-bigram-across-words",
        ),
        pytest.param(
            {"zh-3": "今天天气很好", "zh-4": "明天有会议"},
            "天气",
            "zh-3",
            id="chinese-word-inside-a-compound",
        ),
    ],
)
def test_keyword_search_finds_other_forms_and_segmented_words(
    index: MilvusIndex,
    model_key: str,
    make_row: MakeRow,
    documents: dict[str, str],
    query: str,
    expected: str,
) -> None:
    index.upsert(model_key, [make_row(i, X, content=text) for i, text in documents.items()])

    assert ids(index.search_keyword(model_key, query, **KB1)) == [expected]


def test_hybrid_keeps_each_sides_first_hit(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    """Rows ranked second and third by both sides outscore, by plain RRF, the rows that only
    one side ranks first; the fused top 2 still holds both first hits."""
    index.upsert(
        model_key,
        [
            # The nearest vector; no query term.
            make_row("dense-first", [1.0, 0.0, 0.0, 0.0], content="unrelated words here"),
            # The best keyword match; the farthest vector.
            make_row("keyword-first", [-1.0, 0.0, 0.0, 0.0], content="zeppelin zeppelin hangar"),
            make_row("both-2", [0.9, 0.43, 0.0, 0.0], content="zeppelin hangar doors and more"),
            make_row(
                "both-3", [0.8, 0.6, 0.0, 0.0], content="zeppelin flights and many other words"
            ),
        ],
    )

    hits = index.search_hybrid(model_key, X, "zeppelin hangar", **KB1, top_k=2)

    assert set(ids(hits)) == {"dense-first", "keyword-first"}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    top3 = index.search_hybrid(model_key, X, "zeppelin hangar", **KB1, top_k=3)
    assert set(ids(top3)) == {"dense-first", "keyword-first", "both-2"}


def test_a_schema_1_collection_is_migrated_on_first_use(index: MilvusIndex, model_key: str) -> None:
    client: MilvusClient = index._client  # the same store the index opened
    legacy = legacy_collection_name(model_key)
    _create_schema_1(client, legacy)
    client.insert(
        legacy,
        [
            _schema_1_row("old-1", "Архив содержит документы."),
            _schema_1_row("old-2", "Weather today."),
        ],
    )
    client.flush(legacy)

    hits = index.search_keyword(model_key, "документов", **KB1)

    assert ids(hits) == ["old-1"] and hits[0].content == "Архив содержит документы."
    assert set(ids(index.search_dense(model_key, X, **KB1, top_k=5))) == {"old-1", "old-2"}
    assert index.count(model_key, "k-1") == 2
    assert not client.has_collection(legacy)
    assert client.has_collection(collection_name(model_key))


def _create_schema_1(client: MilvusClient, name: str) -> None:
    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, max_length=256, is_primary=True)
    for field in ("tenant_id", "knowledge_id", "chunk_id", "source_type"):
        schema.add_field(field, DataType.VARCHAR, max_length=128)
    schema.add_field("knowledge_base_id", DataType.VARCHAR, max_length=128, is_partition_key=True)
    schema.add_field("is_enabled", DataType.BOOL)
    schema.add_field("content", DataType.VARCHAR, max_length=65_535)
    schema.add_field(
        "bm25_text",
        DataType.VARCHAR,
        max_length=65_535,
        enable_analyzer=True,
        analyzer_params={"tokenizer": "standard"},
    )
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=4)
    schema.add_function(
        Function(
            name="bm25",
            function_type=FunctionType.BM25,
            input_field_names=["bm25_text"],
            output_field_names=["sparse"],
        )
    )
    client.create_collection(name, schema=schema, num_partitions=16)
    params = MilvusClient.prepare_index_params()
    params.add_index("dense", index_type="FLAT", metric_type="COSINE")
    params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    client.create_index(name, params)
    client.load_collection(name)


def _schema_1_row(row_id: str, content: str) -> dict[str, Any]:
    return {
        "id": row_id,
        "tenant_id": "tenant-1",
        "knowledge_base_id": "kb-1",
        "knowledge_id": "k-1",
        "chunk_id": row_id,
        "source_type": "chunk",
        "is_enabled": True,
        "content": content,
        "bm25_text": content.lower(),
        "dense": X,
    }


def test_excluded_knowledges_are_neither_found_nor_counted(
    index: MilvusIndex, model_key: str, make_row: MakeRow
) -> None:
    """A knowledge still indexing is left out of the results and of the idf."""
    finished = [
        make_row("done", X, content="turbine inspection", knowledge="k-done"),
        make_row("other", X, content="gate inspection", knowledge="k-other"),
    ]
    indexing = [
        make_row(f"new-{i}", X, content=f"turbine {i}", knowledge="k-new") for i in range(10)
    ]
    alone = f"test/{uuid.uuid4().hex[:12]}/4"
    index.upsert(alone, finished)
    index.upsert(model_key, finished + indexing)

    expected = index.search_keyword(alone, "turbine", **KB1)
    hits = index.search_keyword(model_key, "turbine", **KB1, excluded_knowledge_ids=["k-new"])
    assert [(h.id, h.score) for h in hits] == [(h.id, h.score) for h in expected]
    fused = index.search_hybrid(model_key, X, "turbine", **KB1, excluded_knowledge_ids=["k-new"])
    assert {h.knowledge_id for h in fused} == {"k-done", "k-other"}
    dense = index.search_dense(model_key, X, **KB1, excluded_knowledge_ids=["k-new", "k-other"])
    assert ids(dense) == ["done"]
