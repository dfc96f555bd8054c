"""A JSON file three times bigger than a chunk, read by a real docreader over gRPC and cut by
the real chunking stage (issue 11, item 7): several chunks, each under the size, each row
carrying its JSON path as its breadcrumb (``context_header``, what the embedding text puts
first)."""

from __future__ import annotations

import json
import re

from tests.integration.docreader.conftest import client  # noqa: F401  (the fixture)
from tests.integration.pipeline.test_data_table import (
    CHUNKING,
    ctx,  # noqa: F401  (the fixture)
    processed_knowledge,
)
from workers.context import WorkerContext
from workers.docreader_client import DocReaderClient, ReadConfig
from workers.pipeline.chunks.indexing import embedding_text

SIZE = CHUNKING["chunk_size"]
ORDERS = 16
PATH = re.compile(r"^\$(?:\.[A-Za-z_]\w*|\[\d+(?::\d+)?\])*$")


def orders_json() -> bytes:
    orders = [
        {
            "id": n,
            "customer": {"name": f"Customer {n}", "city": ("Oslo", "Rome")[n % 2]},
            "total": 10.5 * n,
        }
        for n in range(ORDERS)
    ]
    return json.dumps({"shop": "Pens & Ink", "orders": orders}).encode()


def test_a_json_file_becomes_chunks_under_the_size_named_by_their_paths(
    ctx: WorkerContext,  # noqa: F811
    client: DocReaderClient,  # noqa: F811
) -> None:
    for engine in ("builtin", "simple"):
        content = orders_json()
        read = client.read(
            content, file_name="orders.json", file_type="json", config=ReadConfig(engine=engine)
        )
        assert len(read.markdown) > 3 * SIZE
        row = processed_knowledge(ctx, read.markdown, file_name="orders.json")
        chunks, _ = ctx.chunks.list_by_knowledge(row.id, limit=1000, tenant_id=None)
        texts = sorted((c for c in chunks if c.chunk_type == "text"), key=lambda c: c.chunk_index)
        assert len(texts) >= 3, engine
        assert all(len(c.content) <= SIZE for c in texts), engine
        assert all(PATH.match(c.context_header) for c in texts), [c.context_header for c in texts]
        assert any(c.context_header.startswith("$.orders[") for c in texts), engine
        assert all(c.content == read.markdown[c.start_at : c.end_at] for c in texts)
        # The first chunk holds "shop" (with the first orders, when they fit, it is "$");
        # the others are named by the order, or the run of orders, they hold.
        assert texts[0].context_header in ("$", "$.shop")
        for chunk in texts[1:]:
            named = re.fullmatch(r"\$\.orders\[(\d+)(?::(\d+))?\].*", chunk.context_header)
            assert named is not None, (engine, chunk.context_header)
            first = int(named.group(1))
            last = int(named.group(2)) - 1 if named.group(2) else first
            assert f'"id": {first}' in chunk.content or f"Customer {first}" in chunk.content
            assert all(f"Customer {n}" not in chunk.content for n in range(last + 1, ORDERS))
        assert embedding_text("orders.json", texts[1]).split("\n")[1] == texts[1].context_header
