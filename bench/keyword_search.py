"""(h) Keyword search latency on milvus-lite: our BM25 (row weights in a sparse vector, idf
counted over the searched scope at query time, storage/index/keyword_scoring.py) against
Milvus's own BM25 function (the schema-1 collections, statistics per segment), on the same
rows in the same milvus-lite store, and dense search for scale.

The rows are synthetic English-like chunks (80 words drawn from a Zipf-distributed 5,000-word
vocabulary, so queries mix very common and rare terms), written in batches of 500 (each its
own segment), all in one knowledge base. The three searches alternate query by query; each
query is run once to warm up, then timed.

    .venv/bin/python -m bench.keyword_search [--rows 5000] [--queries 40] [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pymilvus import DataType, Function, FunctionType, MilvusClient

from bench.report import percentile, write_result
from storage.index.milvus_index import IndexRow, MilvusIndex

NAME = "keyword_search"
MODEL_KEY = "bench/keyword/8"
LEGACY = "bench_keyword_milvus_bm25"
DIMENSION = 8
VOCABULARY = 5_000
WORDS_PER_ROW = 80
BATCH = 500
SCOPE: dict[str, Any] = {"tenant_ids": ["t"], "knowledge_base_ids": ["kb"], "top_k": 10}


def _words(rng: random.Random, count: int) -> list[str]:
    # Zipf-like: word i has weight 1 / (i + 1).
    weights = [1.0 / (i + 1) for i in range(VOCABULARY)]
    return [f"term{i}" for i in rng.choices(range(VOCABULARY), weights=weights, k=count)]


def _rows(rng: random.Random, count: int) -> list[IndexRow]:
    rows = []
    for i in range(count):
        text = " ".join(_words(rng, WORDS_PER_ROW))
        vector = [rng.uniform(-1, 1) for _ in range(DIMENSION)]
        rows.append(
            IndexRow(
                id=f"r{i}",
                tenant_id="t",
                knowledge_base_id="kb",
                knowledge_id=f"k{i}",
                chunk_id=f"r{i}",
                source_type="chunk",
                is_enabled=True,
                content=text,
                keyword_text=text,
                vector=vector,
            )
        )
    return rows


def _create_milvus_bm25(client: MilvusClient) -> None:
    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, max_length=64, is_primary=True)
    schema.add_field("kb", DataType.VARCHAR, max_length=64, is_partition_key=True)
    schema.add_field("is_enabled", DataType.BOOL)
    schema.add_field(
        "text",
        DataType.VARCHAR,
        max_length=65_535,
        enable_analyzer=True,
        analyzer_params={"tokenizer": "standard"},
    )
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_function(
        Function(
            name="bm25",
            function_type=FunctionType.BM25,
            input_field_names=["text"],
            output_field_names=["sparse"],
        )
    )
    client.create_collection(LEGACY, schema=schema, num_partitions=16)
    params = MilvusClient.prepare_index_params()
    params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    params.add_index("kb", index_type="INVERTED")
    client.create_index(LEGACY, params)
    client.load_collection(LEGACY)


def _interleaved(
    runs: dict[str, Callable[[str], object]], queries: Sequence[str]
) -> dict[str, list[float]]:
    """Milliseconds per query of each run, the runs alternating query by query so that the
    load of a shared machine falls on all of them alike; each query is run once untimed first."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for query in queries:
        for name, run in runs.items():
            run(query)
            start = time.perf_counter()
            run(query)
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.keyword_search", description=__doc__)
    parser.add_argument("--rows", type=int, default=5_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="1,000 rows, 10 queries")
    args = parser.parse_args(argv)
    rows_n, queries_n = (1_000, 10) if args.quick else (args.rows, args.queries)
    rng = random.Random(7)
    rows = _rows(rng, rows_n)
    queries = [
        " ".join([*_words(rng, 2), f"term{rng.randrange(VOCABULARY)}"]) for _ in range(queries_n)
    ]
    with tempfile.TemporaryDirectory() as tmp, MilvusIndex(str(Path(tmp) / "m.db")) as index:
        for start in range(0, rows_n, BATCH):
            index.upsert(MODEL_KEY, rows[start : start + BATCH])
        client: MilvusClient = index._client  # the same milvus-lite store
        _create_milvus_bm25(client)
        for start in range(0, rows_n, BATCH):
            client.insert(
                LEGACY,
                [
                    {"id": r.id, "kb": "kb", "is_enabled": True, "text": r.content}
                    for r in rows[start : start + BATCH]
                ],
            )
            client.flush(LEGACY)
        filter_expr = 'is_enabled == true and kb in ["kb"]'
        vector = rows[0].vector
        times = _interleaved(
            {
                "ours": lambda q: index.search_keyword(MODEL_KEY, q, **SCOPE),
                "milvus": lambda q: client.search(
                    LEGACY,
                    data=[q],
                    anns_field="sparse",
                    filter=filter_expr,
                    limit=10,
                    output_fields=["id"],
                    search_params={"metric_type": "BM25"},
                ),
                "dense": lambda q: index.search_dense(MODEL_KEY, vector, **SCOPE),
            },
            queries,
        )
    ours, milvus, dense = times["ours"], times["milvus"], times["dense"]
    figures: dict[str, object] = {
        "rows": rows_n,
        "queries": queries_n,
        "ours_p50_ms": round(statistics.median(ours), 1),
        "ours_p95_ms": round(percentile(ours, 0.95), 1),
        "milvus_bm25_p50_ms": round(statistics.median(milvus), 1),
        "milvus_bm25_p95_ms": round(percentile(milvus, 0.95), 1),
        "dense_p50_ms": round(statistics.median(dense), 1),
        "ratio_p50": round(statistics.median(ours) / statistics.median(milvus), 2),
    }
    for key, value in figures.items():
        print(f"{key}: {value}")
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
