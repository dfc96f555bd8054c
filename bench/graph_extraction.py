"""(r) Graph extraction throughput: how close a round's extraction calls come to the model's
limit. A chat server (a process of its own, as in (q)) answers every call after a fixed
latency L with a chunk's entities and relations in structured output; the process may have
C calls in flight per model (SLUICE_MODEL_CONCURRENCY, default 4). The ideal wall time is
calls * L / C.

A knowledge of N text chunks (graph on, typed extraction) is set finalizing and its graph
subtasks, one per chunk, are queued by the postprocess stage's planner (``GraphSubtask``);
each runs the real task: its call, its answer read against the schema, its entities and
relations merged into the knowledge base's graph store (every chunk names the same harbour
entity, so the merge writes contend as a real document's would), its end counted; the last
completes the knowledge. The lite queue has the server's pools at their default sizes for
this machine (``--workers N`` sets the enrichment pool): a task makes one call, so the
threads serving the ``graph`` queue must be at least C.

Reported: wall / ideal (target <= 1.15), the process's CPU seconds, the graph's size.

    .venv/bin/python -m bench.graph_extraction [--chunks 1000] [--latency-ms 500] \
        [--concurrency 4] [--workers N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import update

from bench.enrichment_throughput import chat_process, threads_serving
from bench.report import verdict, write_result
from core.effective_config import resolve
from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.queue.base import QueueName
from storage.queue.lite import LiteTaskQueue
from storage.queue.pools import Pool
from tests.support.openai_chat_server import ChatRequest
from tests.support.waiting import wait_until
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.pipeline.stages.graph_subtask import GraphSubtask
from workers.pipeline.stages.work import DocumentWork
from workers.settings_groups import ModelSettings, OutboundSettings, QueueSettings

NAME = "graph_extraction"
TARGET_RATIO = 1.15
WAIT_S = 900.0
_SECTION = re.compile(r"Section (\d+):")


def graph_answer(request: ChatRequest) -> str:
    """The chunk's harbour (shared by every chunk), its crate lot and the relation."""
    found = _SECTION.search(request.texts[-1])
    lot = f"Crate lot {found[1] if found else 0}"
    return json.dumps(
        {
            "entities": [
                {"name": "Varnholt Harbour", "type": "organization", "description": "A port."},
                {"name": lot, "type": "cargo", "description": "Crates of salt."},
            ],
            "relations": [
                {
                    "source": "Varnholt Harbour",
                    "target": lot,
                    "relation": "handles",
                    "description": "The harbour crane lifted them.",
                }
            ],
        }
    )


def finalizing_knowledge(ctx: WorkerContext, chat_url: str, chunks: int) -> DocumentWork:
    """A knowledge of ``chunks`` text chunks with graph extraction on, in processing."""
    tenant = ctx.tenants.create_tenant(f"bench-{uuid.uuid4().hex[:6]}").id
    model = {"provider": "openai", "model": "extractor", "base_url": chat_url}
    config = {
        "embedding": {"provider": "local"},
        "indexing": {"vector_enabled": True, "keyword_enabled": True, "graph_enabled": True},
        "extract": {
            "enabled": True,
            "model": model,
            "entity_types": ["organization", "cargo"],
            "relation_types": ["handles"],
        },
    }
    kb = ctx.knowledge_bases.create(
        tenant, f"bench-{uuid.uuid4().hex[:6]}", config=config, embedding_model_key=""
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="Harbour log",
        content="",
        parse_status=ParseStatus.PROCESSING,
        attempt=1,
    )
    ctx.chunks.insert_many(
        [
            NewChunk(
                tenant_id=tenant,
                knowledge_base_id=kb.id,
                knowledge_id=row.id,
                attempt=1,
                chunk_index=i,
                content=f"Section {i}: the Varnholt harbour crane lifted {i + 3} crates of salt.",
            )
            for i in range(chunks)
        ]
    )
    return DocumentWork(row, 1, resolve(config, None), kb.embedding_model_key)


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, object]:
    queue_settings = QueueSettings(**({"pool_enrichment": args.workers} if args.workers else {}))
    settings = local_settings(
        f"sqlite:///{data_dir / 'bench.db'}",
        data_dir,
        queue=queue_settings,
        models=ModelSettings(model_concurrency=args.concurrency),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    pools = settings.queue.pools()
    queue = LiteTaskQueue(pools=pools)
    latency_s = args.latency_ms / 1000
    load_before = os.getloadavg()[0]
    with (
        worker_context(settings, queue=queue, install=True) as ctx,
        chat_process(latency_s, graph_answer) as (chat_url, stop_chat),
    ):
        work = finalizing_knowledge(ctx, chat_url, args.chunks)
        planner = GraphSubtask(ctx.queue, ctx.chunks)
        planned = planner.planned(work)
        with ctx.db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == work.knowledge.id)
                .values(parse_status=ParseStatus.FINALIZING, pending_subtasks_count=planned)
            )
        start, cpu_start = time.perf_counter(), time.process_time()
        queued = planner.enqueue(work)
        assert queue.join(timeout=WAIT_S), "the tasks did not finish"
        wait_until(
            lambda: (
                (row := ctx.knowledges.get(work.knowledge.id, None)) is not None
                and row.parse_status == ParseStatus.COMPLETED
            ),
            timeout=30,
        )
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        calls, max_in_flight = stop_chat()
        graph = dict(ctx.graph.entity_counts(work.knowledge.knowledge_base_id))
    assert graph == {"entities": args.chunks + 1, "relations": args.chunks}, graph
    ideal = calls * latency_s / args.concurrency
    return {
        "concurrency": args.concurrency,
        "pools": {spec.name: spec.size for spec in pools},
        "graph_threads": threads_serving(pools, QueueName.GRAPH),
        "load_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "chunks": args.chunks,
        "tasks": queued,
        "calls": calls,
        "max_in_flight": max_in_flight,
        "latency_ms": round(latency_s * 1000),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "ideal_s": round(ideal, 2),
        "wall_over_ideal": round(wall / ideal, 3),
        "graph": graph,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.graph_extraction", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="200 chunks")
    parser.add_argument("--chunks", type=int, default=0, help="default 1,000")
    parser.add_argument("--latency-ms", type=float, default=500.0)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=ModelSettings().model_concurrency,
        help="calls in flight per model (SLUICE_MODEL_CONCURRENCY's default)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help=f"enrichment pool threads (default: SLUICE_POOL_ENRICHMENT's, "
        f"{QueueSettings().pool_size(Pool.ENRICHMENT)} here)",
    )
    args = parser.parse_args(argv)
    args.chunks = args.chunks or (200 if args.quick else 1000)
    with tempfile.TemporaryDirectory(prefix="sluice-bench-graph-") as tmp:
        figures = run(args, Path(tmp))
    for key, value in figures.items():
        print(f"{key}: {value}")
    ratio = float(figures["wall_over_ideal"])  # type: ignore[arg-type]
    figures["verdict"] = verdict(ratio, TARGET_RATIO, below=True)
    print(f"wall / ideal: {ratio:.3f} ({figures['verdict']})")
    threads = int(figures["graph_threads"])  # type: ignore[call-overload]
    if threads < args.concurrency:
        print(
            f"note: {threads} threads serve the graph queue, fewer than the "
            f"{args.concurrency} calls the model may have in flight: raise "
            f"SLUICE_POOL_ENRICHMENT (--workers) to at least {args.concurrency}"
        )
    figures["met"] = ratio <= TARGET_RATIO
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
