"""Baseline of (g) part 2: milvus-lite alone, in a fresh process set up as Sluice's are,
holding the rows of the same documents (chunked as the pipeline chunks them, random
384-dimensional vectors), written in the embedding stage's batches with one hybrid search
after each document. Its RSS growth is what the index's own data costs, which no server
can shed while it keeps the index in memory.

    .venv/bin/python -m bench.index_memory DOCUMENTS   # prints one JSON line
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
from pathlib import Path

from bench.baseline import embedding_texts
from bench.corpus import markdown_document
from bench.upload_stream import rss_kib
from core.local_models import DEFAULT as DEFAULT_MODEL
from storage.index.milvus_index import IndexRow, MilvusIndex
from workers.process_memory import hand_memory_back
from workers.settings import Settings

MODEL_KEY = "bench-index-alone"


def document_texts(n: int) -> list[str]:
    """The texts of part 2's document `n`, as the pipeline chunks and embeds them."""
    size = 2_000 + (n * 7_919) % 18_000
    return embedding_texts(f"memo-{n}.md", markdown_document(20261201 + n, size, f"Memo {n}"))


def _row(n: int, i: int, text: str, rng: random.Random) -> IndexRow:
    return IndexRow(
        id=f"k{n}-c{i}",
        tenant_id="tenant",
        knowledge_base_id="kb",
        knowledge_id=f"k{n}",
        chunk_id=f"k{n}-c{i}",
        source_type="chunk",
        is_enabled=True,
        content=text,
        keyword_text=text,
        vector=[rng.gauss(0.0, 1.0) for _ in range(DEFAULT_MODEL.dimension)],
    )


def rss_after_documents(count: int) -> list[float]:
    """RSS in MiB after each of `count` documents written into a fresh milvus-lite index."""
    batch = Settings.from_env().models.embed_batch_size
    rng = random.Random(20261201)
    after: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        MilvusIndex(str(Path(tmp) / "index.db")) as index,
    ):
        for n in range(count):
            rows = [_row(n, i, t, rng) for i, t in enumerate(document_texts(n))]
            for first in range(0, len(rows), batch):
                index.upsert(MODEL_KEY, rows[first : first + batch])
            query = [rng.gauss(0.0, 1.0) for _ in range(DEFAULT_MODEL.dimension)]
            index.search_hybrid(
                MODEL_KEY, query, f"memo {n}", tenant_ids=["tenant"], knowledge_base_ids=["kb"]
            )
            after.append(rss_kib(os.getpid()) / 1024)
    return after


if __name__ == "__main__":
    hand_memory_back()
    print(json.dumps({"rss_after_document_mib": rss_after_documents(int(sys.argv[1]))}))
