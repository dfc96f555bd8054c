"""(a) Full-mode ingestion throughput against the raw embedding model, in one run.

Pipeline: a deterministic Markdown corpus is uploaded to a full deployment (API, docreader,
RQ workers, milvus-lite server, PostgreSQL, Redis); chunks/s = the chunks the pipeline wrote
(the chunking spans' `chunks_written`) / the wall time from the first upload to the last
completion. Baseline: the default local model alone embedding the very same texts (chunked and
titled as pipeline/chunks/indexing.py does, in the same batches), measured while the stack is
not running: once before it starts and once after it has stopped, so both phases get the
same two cores. The faster of the two is the baseline (a neighbour can only slow a run down,
so it is the less disturbed one); a gap between them, or CPU used outside the stack during
the pipeline run, is reported as a warning.

    .venv/bin/python -m bench.ingest_throughput [--quick] [--docs N] [--workers N]
        [--embed-threads N] [--model NAME]

`--model` names the local model of the knowledge base and of the baseline (default: the one
new knowledge bases get).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from bench.baseline import batch_size, embed_document, embedding_texts, warm_embedder
from bench.corpus import markdown_document
from bench.report import verdict, write_result
from core import local_models
from core.local_models import LocalModel
from tests.e2e.stacks import full_stack

NAME = "ingest_throughput"
TARGET_RATIO = 0.85
STAGES = ("docreader", "chunking", "embedding")
WAIT_S = 900.0


@dataclass(frozen=True)
class CorpusDocument:
    file_name: str
    markdown: str


def build_corpus(count: int, seed: int = 20261130) -> list[CorpusDocument]:
    """`count` documents of 10-20 KB each."""
    rng = random.Random(seed)
    return [
        CorpusDocument(
            f"handbook-{n:03d}.md",
            markdown_document(seed + n, rng.randint(10_000, 20_000), f"Handbook {n}"),
        )
        for n in range(count)
    ]


def raw_chunks_per_second(texts_per_document: Sequence[Sequence[str]], model: LocalModel) -> float:
    """The model alone (one thread per core), batched per document like the embedding stage;
    the model load and a warm-up batch are not timed (the workers are warmed up too)."""
    embedder = warm_embedder(texts_per_document[0], model=model)
    start = time.perf_counter()
    for texts in texts_per_document:
        embed_document(embedder, texts)
    total = sum(len(texts) for texts in texts_per_document)
    return total / (time.perf_counter() - start)


@dataclass(frozen=True)
class PipelineRun:
    chunks: int
    seconds: float
    upload_seconds: float
    # Mean seconds per document spent in each stage, from the spans.
    stage_seconds: dict[str, float]
    # Sum of all attempts' processing time / (workers * wall time).
    worker_utilisation: float
    # CPU seconds used during the run by each process of the stack, and by everything else
    # on the machine (PostgreSQL, Redis, this client, other tenants).
    cpu_seconds: dict[str, float]


def _output_number(span: v1.Span, key: str) -> int:
    if span.output is None:
        raise RuntimeError(f"span {span.name} has no output")
    return int(float(str(span.output.to_dict()[key])))


def _cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    used = {}
    for name, pid in pids.items():
        times = psutil.Process(pid).cpu_times()
        used[name] = times.user + times.system + times.children_user + times.children_system
    machine = psutil.cpu_times()
    used["machine"] = machine.user + machine.system + machine.nice + machine.irq + machine.softirq
    return used


def kb_config(model: LocalModel) -> v1.KnowledgeBaseConfig:
    return v1.KnowledgeBaseConfig(embedding=v1.ModelConfig(provider="local", model=model.name))


def _warm_up(client: SluiceClient, model: LocalModel) -> None:
    """Two small documents, so that each worker has loaded the model and opened its
    connections before the measured run."""
    kb = client.create_knowledge_base(f"bench-warm-up-{time.time_ns()}", config=kb_config(model))
    ids = [
        client.upload_file(
            kb.id,
            io.BytesIO(markdown_document(n, 2_000, f"Warm-up {n}").encode()),
            file_name=f"warm-up-{n}.md",
        ).id
        for n in range(2)
    ]
    for knowledge_id in ids:
        client.wait_until_done(knowledge_id, WAIT_S)


def run_pipeline(
    corpus: Sequence[CorpusDocument], workers: int, embed_threads: int, model: LocalModel
) -> PipelineRun:
    threads = {"SLUICE_EMBED_THREADS": str(embed_threads)}
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        full_stack(Path(tmp), workers=workers, extra_env=threads) as stack,
    ):
        for n in range(workers):
            stack.processes[f"worker{n}"].wait_for_line(r"Listening on", 120)
        with SluiceClient(stack.target, timeout=120) as client:
            _warm_up(client, model)
            kb = client.create_knowledge_base("bench-ingest", config=kb_config(model))
            pids = {name: process.pid for name, process in stack.processes.items()}
            cpu_before = _cpu_seconds(pids)
            start = time.perf_counter()
            ids = [
                client.upload_file(
                    kb.id, io.BytesIO(doc.markdown.encode()), file_name=doc.file_name
                ).id
                for doc in corpus
            ]
            uploaded = time.perf_counter()
            for knowledge_id in ids:
                done = client.wait_until_done(knowledge_id, WAIT_S)
                if done.parse_status != v1.ParseStatus.COMPLETED:
                    raise RuntimeError(f"{knowledge_id} ended {done.parse_status.name}")
            elapsed = time.perf_counter() - start
            cpu_after = _cpu_seconds(pids)
            chunks = 0
            stage_ms = dict.fromkeys(STAGES, 0)
            busy_ms = 0
            for knowledge_id in ids:
                spans = {s.name: s for s in client.get_spans(knowledge_id).spans}
                chunks += _output_number(spans["chunking"], "chunks_written")
                for stage in STAGES:
                    stage_ms[stage] += spans[stage].duration_ms
                busy_ms += spans["knowledge_processing"].duration_ms
    return PipelineRun(
        chunks=chunks,
        seconds=elapsed,
        upload_seconds=uploaded - start,
        stage_seconds={s: ms / 1000 / len(ids) for s, ms in stage_ms.items()},
        worker_utilisation=busy_ms / 1000 / (workers * elapsed),
        cpu_seconds=_cpu_breakdown(cpu_before, cpu_after),
    )


def _cpu_breakdown(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    used = {name: after[name] - before[name] for name in before}
    used["other"] = used.pop("machine") - sum(used.values())
    return used


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.ingest_throughput", description=__doc__)
    parser.add_argument("--docs", type=int, default=60, help="documents of 10-20 KB")
    parser.add_argument("--quick", action="store_true", help="12 documents")
    parser.add_argument("--workers", type=int, default=2, help="RQ worker processes")
    parser.add_argument(
        "--embed-threads",
        type=int,
        default=None,
        help="SLUICE_EMBED_THREADS of each worker (default: cores / workers; 0: one per core)",
    )
    parser.add_argument("--model", default=local_models.DEFAULT.name, help="local model")
    args = parser.parse_args(argv)
    model = local_models.local_model(args.model)
    cores = os.cpu_count() or 1
    embed_threads = (
        max(1, cores // args.workers) if args.embed_threads is None else args.embed_threads
    )
    corpus = build_corpus(12 if args.quick else args.docs)
    texts = [embedding_texts(doc.file_name, doc.markdown) for doc in corpus]
    expected_chunks = sum(len(t) for t in texts)
    print(
        f"corpus: {len(corpus)} documents, {sum(len(d.markdown) for d in corpus)} bytes, "
        f"{expected_chunks} chunks; embedding batch size {batch_size()}"
    )

    raw_before = raw_chunks_per_second(texts, model)
    print(f"raw model (before the stack): {raw_before:.1f} chunks/s")
    run = run_pipeline(corpus, args.workers, embed_threads, model)
    if run.chunks != expected_chunks:
        raise RuntimeError(f"the pipeline wrote {run.chunks} chunks, expected {expected_chunks}")
    raw_after = raw_chunks_per_second(texts, model)
    print(f"raw model (after the stack):  {raw_after:.1f} chunks/s")

    raw = max(raw_before, raw_after)
    pipeline = run.chunks / run.seconds
    ratio = pipeline / raw
    print(
        f"pipeline: {run.chunks} chunks in {run.seconds:.1f} s = {pipeline:.1f} chunks/s "
        f"({args.workers} workers, SLUICE_EMBED_THREADS={embed_threads}; "
        f"uploads took {run.upload_seconds:.1f} s; "
        f"worker utilisation {run.worker_utilisation:.0%})"
    )
    print(
        "mean seconds per document: "
        + ", ".join(f"{s} {t:.2f}" for s, t in run.stage_seconds.items())
    )
    cores = os.cpu_count() or 1
    print(
        f"CPU seconds during the run (of {run.seconds * cores:.0f} available): "
        + ", ".join(f"{name} {t:.1f}" for name, t in run.cpu_seconds.items())
    )
    print(f"ratio pipeline / raw: {ratio:.2f} ({verdict(ratio, TARGET_RATIO)})")
    if abs(raw_before - raw_after) > 0.1 * raw:
        print("warning: the two baseline runs differ by more than 10%: the machine was busy")
    if run.cpu_seconds["other"] > 0.1 * run.seconds * cores:
        print("warning: processes outside the stack used over 10% of the CPU during the run")
    figures: dict[str, object] = {
        "documents": len(corpus),
        "chunks": run.chunks,
        "model": model.name,
        "workers": args.workers,
        "embed_threads": embed_threads,
        "pipeline_seconds": round(run.seconds, 2),
        "pipeline_chunks_per_s": round(pipeline, 2),
        "raw_chunks_per_s_before": round(raw_before, 2),
        "raw_chunks_per_s_after": round(raw_after, 2),
        "raw_chunks_per_s": round(raw, 2),
        "ratio": round(ratio, 3),
        "target_ratio": TARGET_RATIO,
        "met": ratio >= TARGET_RATIO,
        "upload_seconds": round(run.upload_seconds, 2),
        "stage_seconds_per_document": {s: round(t, 3) for s, t in run.stage_seconds.items()},
        "worker_utilisation": round(run.worker_utilisation, 3),
        "cpu_seconds": {name: round(t, 1) for name, t in run.cpu_seconds.items()},
    }
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
