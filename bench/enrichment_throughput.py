"""(q) Enrichment throughput: how close a round's model calls come to the model's limit.
A chat server answers every call after a fixed latency L; the process may have C calls in
flight per model (SLUICE_MODEL_CONCURRENCY, default 4). The ideal wall time of a part's
calls is calls * L / C: they must overlap up to the limit, not run one after another.

The queue is the lite server's: every pool at its default size for this machine's cores
(``QueueSettings().pools()``; ``--workers N`` sets the enrichment pool instead), so the
figures are what a user gets by default. The question and multimodal queues are served by
the enrichment and elastic pools. An image task makes one call, so with fewer of their
threads than C the limit cannot fill; a question batch queues its 20 calls on the model's
call pool itself, so two threads fill it (one batch's calls overlap another's writes).

Two parts, each with its own chat server in a process of its own (as a model server is):

- questions: a knowledge of N text chunks set finalizing, its question batches (20 chunks
  each) queued by the postprocess stage's planner (``QuestionSubtask``); each batch runs
  the real task: its calls, its question rows, embedded (a local OpenAI-compatible
  embedding server, deterministic vectors) into milvus-lite. Question call L ~0.5 s.
- images: a round whose text links M stored PNGs, OCR off, captions on; the real
  multimodal stage queues one image task each, which reads the stored picture, asks the
  VLM (the same chat server, image_url content) for its caption, writes and indexes the
  caption chunk and counts the image done; the last one queues the post-processing, which
  has nothing planned and completes the knowledge. Caption call L ~1 s.

The clock runs from the first enqueue until the knowledge completes. Reported per part:
wall / ideal, target <= 1.15, and the process's CPU seconds (a run on a loaded machine is
CPU-bound, not model-bound, when they come near the wall time).

    .venv/bin/python -m bench.enrichment_throughput [--chunks 1000] [--images 200] \
        [--question-latency-ms 500] [--caption-latency-ms 1000] [--concurrency 4] \
        [--workers N] [--quick]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path

from sqlalchemy import update

from bench.enrichment_pictures import picture_round, queue_image_tasks
from bench.report import verdict, write_result
from core.effective_config import resolve
from core.statuses import ChunkType, ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.queue.base import QueueName
from storage.queue.lite import LiteTaskQueue
from storage.queue.pools import Pool, PoolSpec
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.waiting import wait_until
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.pipeline.stages.question_subtask import QuestionSubtask
from workers.pipeline.stages.work import DocumentWork
from workers.settings_groups import ModelSettings, OutboundSettings, QueueSettings

NAME = "enrichment_throughput"
TARGET_RATIO = 1.15
QUESTIONS = '{"questions": ["Which crane lifted the crates?", "How many crates were lifted?"]}'
CAPTION = "A crate of salt on the quay, lifted by the harbour crane."
WAIT_S = 900.0

Counts = Callable[[], tuple[int, int]]


def answer(request: ChatRequest) -> str:
    return CAPTION if request.images else QUESTIONS


def serve_chat(
    latency_s: float, conn: Connection, reply: Callable[[ChatRequest], str] = answer
) -> None:
    """The chat server, in a process of its own (as a model server is): its base URL is
    sent when it listens, its request count and peak in flight when told to stop."""
    with ChatServer(answer=reply, delay_s=latency_s) as chat:
        conn.send(chat.base_url)
        conn.recv()
        conn.send((len(chat.log()), chat.max_in_flight))


@contextmanager
def chat_process(
    latency_s: float, reply: Callable[[ChatRequest], str] = answer
) -> Iterator[tuple[str, Counts]]:
    """The chat server's base URL, and what stops it and returns its counts; ``reply``
    writes its answers (a forked process: any function will do)."""
    ours, theirs = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(
        target=serve_chat, args=(latency_s, theirs, reply), daemon=True
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
    """A knowledge of ``chunks`` text chunks, in processing; the caller sets it finalizing."""
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
    return DocumentWork(row, 1, resolve(config, None), kb.embedding_model_key)


def _completed(ctx: WorkerContext, queue: LiteTaskQueue, knowledge_id: str) -> None:
    assert queue.join(timeout=WAIT_S), "the tasks did not finish"
    # The post-processing ends the round in its own task: wait for the row to say so.
    wait_until(
        lambda: (
            (row := ctx.knowledges.get(knowledge_id, None)) is not None
            and row.parse_status == ParseStatus.COMPLETED
        ),
        timeout=30,
    )


def question_part(
    ctx: WorkerContext,
    queue: LiteTaskQueue,
    embeddings: EmbeddingServer,
    chunks: int,
    latency_s: float,
) -> dict[str, float]:
    with chat_process(latency_s) as (chat_url, stop_chat):
        work = finalizing_knowledge(ctx, embeddings, chat_url, chunks)
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
        _completed(ctx, queue, work.knowledge.id)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        calls, max_in_flight = stop_chat()
    return {
        "batches": queued,
        "calls": calls,
        "max_in_flight": max_in_flight,
        "wall_s": wall,
        "cpu_s": cpu,
    }


def image_part(
    ctx: WorkerContext,
    queue: LiteTaskQueue,
    embeddings: EmbeddingServer,
    images: int,
    latency_s: float,
) -> dict[str, float]:
    with chat_process(latency_s) as (chat_url, stop_chat):
        picture = picture_round(ctx, embeddings, chat_url, images)
        knowledge_id = picture.work.knowledge.id
        start, cpu_start = time.perf_counter(), time.process_time()
        queue_image_tasks(ctx, picture)
        _completed(ctx, queue, knowledge_id)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        calls, max_in_flight = stop_chat()
    captions = [
        c
        for c in ImageChunkRepository(ctx.db).children(knowledge_id, 1)
        if c.chunk_type == ChunkType.IMAGE_CAPTION and c.content == CAPTION
    ]
    assert len(captions) == images, f"{len(captions)} of {images} captions written"
    return {"calls": calls, "max_in_flight": max_in_flight, "wall_s": wall, "cpu_s": cpu}


def threads_serving(pools: Sequence[PoolSpec], queue: QueueName) -> int:
    return sum(spec.size for spec in pools if queue in spec.queues)


def run(args: argparse.Namespace, data_dir: Path) -> dict[str, object]:
    queue_settings = QueueSettings(**({"pool_enrichment": args.workers} if args.workers else {}))
    settings = local_settings(
        f"sqlite:///{data_dir / 'bench.db'}",
        data_dir,
        queue=queue_settings,
        models=ModelSettings(model_concurrency=args.concurrency, embed_batch_size=64),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    pools = settings.queue.pools()
    queue = LiteTaskQueue(pools=pools)
    question_s, caption_s = args.question_latency_ms / 1000, args.caption_latency_ms / 1000
    load_before = os.getloadavg()[0]
    with (
        EmbeddingServer() as embeddings,
        worker_context(settings, queue=queue, install=True) as ctx,
    ):
        questions = question_part(ctx, queue, embeddings, args.chunks, question_s)
        pictures = image_part(ctx, queue, embeddings, args.images, caption_s)
    figures: dict[str, object] = {
        "concurrency": args.concurrency,
        "pools": {spec.name: spec.size for spec in pools},
        "question_threads": threads_serving(pools, QueueName.QUESTION),
        "image_threads": threads_serving(pools, QueueName.MULTIMODAL),
        "load_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "chunks": args.chunks,
        "images": args.images,
    }
    for part, latency_s, measured in (
        ("questions", question_s, questions),
        ("images", caption_s, pictures),
    ):
        ideal = measured["calls"] * latency_s / args.concurrency
        figures[f"{part}_latency_ms"] = round(latency_s * 1000)
        for key, value in measured.items():
            figures[f"{part}_{key}"] = round(value, 2)
        figures[f"{part}_ideal_s"] = round(ideal, 2)
        figures[f"{part}_wall_over_ideal"] = round(measured["wall_s"] / ideal, 3)
    return figures


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.enrichment_throughput", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="200 chunks and 40 images")
    parser.add_argument("--chunks", type=int, default=0, help="default 1,000")
    parser.add_argument("--images", type=int, default=0, help="default 200")
    parser.add_argument("--question-latency-ms", type=float, default=500.0)
    parser.add_argument("--caption-latency-ms", type=float, default=1000.0)
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
    args.images = args.images or (40 if args.quick else 200)
    with tempfile.TemporaryDirectory(prefix="sluice-bench-enrichment-") as tmp:
        figures = run(args, Path(tmp))
    for key, value in figures.items():
        print(f"{key}: {value}")
    met = True
    for part in ("questions", "images"):
        ratio = float(figures[f"{part}_wall_over_ideal"])  # type: ignore[arg-type]
        figures[f"{part}_verdict"] = verdict(ratio, TARGET_RATIO, below=True)
        met = met and ratio <= TARGET_RATIO
        print(f"{part} wall / ideal: {ratio:.3f} ({figures[f'{part}_verdict']})")
    # An image task makes one call at a time; a question batch fans its calls out itself.
    threads = int(figures["image_threads"])  # type: ignore[call-overload]
    if threads < args.concurrency:
        print(
            f"note: {threads} threads serve the multimodal queue, fewer than the "
            f"{args.concurrency} calls the model may have in flight: raise "
            f"SLUICE_POOL_ENRICHMENT (--workers) to at least {args.concurrency}"
        )
    figures["met"] = met
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
