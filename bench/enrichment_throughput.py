"""(q) Question generation throughput: how close a round's question batches come to the
model's limit. A chat server answers every call after a fixed latency L; the process may
have C calls in flight per model (SLUICE_MODEL_CONCURRENCY). The ideal wall time of N
chunks' calls is N * L / C: the batches' calls must overlap up to the limit, not run one
after another.

The chat server runs in a process of its own, as a model server would. A knowledge of N
text chunks is set finalizing and its question batches (20 chunks each) are queued by the
postprocess stage's planner (``QuestionSubtask``) onto a lite queue with `--workers`
threads on the question queue; each batch runs the real task
(``workers.tasks.generate_questions``): its calls, its question rows written to SQLite, and
embedded (a local OpenAI-compatible embedding server, deterministic vectors) into
milvus-lite. The clock runs from the first enqueue until the knowledge completes. Reported:
wall / ideal, target <= 1.15, and the process's CPU seconds (a run on a loaded machine is
CPU-bound, not model-bound, when they come near the wall time).

    .venv/bin/python -m bench.enrichment_throughput [--chunks 1000] [--latency-ms 50] \
        [--concurrency 4] [--workers 2] [--quick]
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path

from sqlalchemy import update

from bench.report import verdict, write_result
from core.effective_config import resolve
from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.queue.base import QueueName
from storage.queue.lite import LiteTaskQueue
from storage.queue.pools import PoolSpec
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.pipeline.stages.question_subtask import QuestionSubtask
from workers.pipeline.stages.work import DocumentWork
from workers.settings_groups import ModelSettings, OutboundSettings

NAME = "enrichment_throughput"
TARGET_RATIO = 1.15
QUESTIONS = '{"questions": ["Which crane lifted the crates?", "How many crates were lifted?"]}'
WAIT_S = 600.0


def answer(request: ChatRequest) -> str:
    return QUESTIONS


def serve_chat(latency_s: float, conn: Connection) -> None:
    """The chat server, in a process of its own (as a model server is): its base URL is
    sent when it listens, its request count and peak in flight when told to stop."""
    with ChatServer(answer=answer, delay_s=latency_s) as chat:
        conn.send(chat.base_url)
        conn.recv()
        conn.send((len(chat.log()), chat.max_in_flight))


@contextmanager
def chat_process(latency_s: float) -> Iterator[tuple[str, Callable[[], tuple[int, int]]]]:
    """The chat server's base URL, and what stops it and returns its counts."""
    ours, theirs = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(
        target=serve_chat, args=(latency_s, theirs), daemon=True
    )
    process.start()
    try:
        base_url = ours.recv()

        def stop() -> tuple[int, int]:
            ours.send("stop")
            counts: tuple[int, int] = ours.recv()
            return counts

        yield base_url, stop
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()


def finalizing_knowledge(
    ctx: WorkerContext, embeddings: EmbeddingServer, chat_url: str, chunks: int
) -> DocumentWork:
    """A knowledge of ``chunks`` text chunks, finalizing with its question batches planned."""
    tenant = ctx.tenants.create_tenant(f"bench-{uuid.uuid4().hex[:6]}").id
    model = {"provider": "openai", "model": "questioner", "base_url": chat_url}
    config = {
        "embedding": embeddings.kb_config(),
        "question_generation": {"enabled": True, "question_count": 2, "model": model},
    }
    kb = ctx.knowledge_bases.create(
        tenant,
        f"bench-{uuid.uuid4().hex[:6]}",
        config=config,
        embedding_model_key=embeddings.model_key,
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
    work = DocumentWork(row, 1, resolve(config, None), kb.embedding_model_key)
    return work


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, object]:
    settings = local_settings(
        f"sqlite:///{data_dir / 'bench.db'}",
        data_dir,
        models=ModelSettings(model_concurrency=args.concurrency, embed_batch_size=64),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    queue = LiteTaskQueue(pools=[PoolSpec("question", (QueueName.QUESTION,), args.workers)])
    latency_s = args.latency_ms / 1000
    with (
        EmbeddingServer() as embeddings,
        chat_process(latency_s) as (chat_url, stop_chat),
        worker_context(settings, queue=queue, install=True) as ctx,
    ):
        work = finalizing_knowledge(ctx, embeddings, chat_url, args.chunks)
        planner = QuestionSubtask(ctx.queue, ctx.chunks)
        batches = planner.planned(work)
        with ctx.db.session() as session:
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == work.knowledge.id)
                .values(parse_status=ParseStatus.FINALIZING, pending_subtasks_count=batches)
            )
        start, cpu_start = time.perf_counter(), time.process_time()
        queued = planner.enqueue(work)
        assert queue.join(timeout=WAIT_S), "the batches did not finish"
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        done = ctx.knowledges.get(work.knowledge.id, None)
        assert done is not None and done.parse_status == ParseStatus.COMPLETED, done
        calls, max_in_flight = stop_chat()
    ideal = calls * latency_s / args.concurrency
    return {
        "chunks": args.chunks,
        "batches": queued,
        "calls": calls,
        "latency_ms": args.latency_ms,
        "concurrency": args.concurrency,
        "question_workers": args.workers,
        "max_in_flight": max_in_flight,
        "wall_s": round(wall, 2),
        # This process's CPU (the embedding server's included): near wall_s, the run was
        # CPU-bound.
        "cpu_s": round(cpu, 2),
        "ideal_s": round(ideal, 2),
        "wall_over_ideal": round(wall / ideal, 3),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.enrichment_throughput", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="200 chunks instead of 1,000")
    parser.add_argument("--chunks", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="question queue threads")
    args = parser.parse_args(argv)
    args.chunks = args.chunks or (200 if args.quick else 1000)
    with tempfile.TemporaryDirectory(prefix="sluice-bench-questions-") as tmp:
        figures = run(args, Path(tmp))
    for key, value in figures.items():
        print(f"{key}: {value}")
    ratio = float(figures["wall_over_ideal"])  # type: ignore[arg-type]
    figures["verdict"] = verdict(ratio, TARGET_RATIO, below=True)
    figures["met"] = ratio <= TARGET_RATIO
    print(f"wall / ideal: {ratio:.3f} ({figures['verdict']})")
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
