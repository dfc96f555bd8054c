"""(w) Clone time of a knowledge base ÷ its original ingestion time, in the same run.

A lite (or full) deployment with the local embedding model ingests ``-n`` Markdown
documents of ``--kb`` KB each (uploaded together; the clock runs from the first upload
until the last is completed), then CloneKnowledgeBase copies the knowledge base into a new
one (the clock runs from the request until the job is completed, watched as a stream). A
clone embeds nothing: its index rows are copied with their vectors, so the ratio says what
re-embedding would have cost. A search of the clone must find what the source's finds.

    .venv/bin/python -m bench.clone_speed [-n 20] [--kb 20] [--modes lite,full]
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from bench.corpus import markdown_document
from bench.report import write_result
from tests.e2e.stacks import Stack, full_stack, lite_stack

NAME = "clone_speed"
WAIT_S = 600.0


def _stack(mode: str, data_dir: Path) -> AbstractContextManager[Stack]:
    return lite_stack(data_dir) if mode == "lite" else full_stack(data_dir)


def run_mode(mode: str, count: int, size_bytes: int, seed: int) -> dict[str, object]:
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        _stack(mode, Path(tmp)) as stack,
        SluiceClient(stack.target, timeout=60) as client,
    ):
        for name, process in stack.processes.items():
            if name.startswith("worker"):
                process.wait_for_line(r"Listening on", 120)
        warm = client.create_knowledge_base("bench-clone-warm-up")
        first = client.create_manual(warm.id, "warm", markdown_document(seed, 2000, "Warm"))
        client.wait_until_done(first.id, WAIT_S)  # model load, collection creation

        kb = client.create_knowledge_base("bench-clone-source")
        start = time.perf_counter()
        uploaded = [
            client.upload_file(
                kb.id,
                io.BytesIO(markdown_document(seed + n, size_bytes, f"Notes {n}").encode()),
                file_name=f"notes-{n}.md",
            )
            for n in range(count)
        ]
        for knowledge in uploaded:
            finished = client.wait_until_done(knowledge.id, WAIT_S)
            assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
        ingest_s = time.perf_counter() - start
        chunks = sum(len(list(client.list_chunks(k.id))) for k in uploaded)

        start = time.perf_counter()
        job = client.clone_knowledge_base(kb.id)
        progress = client.wait_for_clone(job.job_id)
        clone_s = time.perf_counter() - start
        assert progress.status == v1.JobStatus.COMPLETED, progress.error_message
        query = "notes on the harbour"
        source = [(h.knowledge_title, h.chunk_index) for h in client.search(query, [kb.id])]
        cloned = [(h.knowledge_title, h.chunk_index) for h in client.search(query, [job.target_id])]
        assert cloned == source, "the clone searches differently"
        figures: dict[str, object] = {
            "documents": count,
            "chunks": chunks,
            "ingest_s": round(ingest_s, 2),
            "clone_s": round(clone_s, 2),
            "ratio": round(clone_s / ingest_s, 3),
        }
        print(f"{mode}: {figures}")
        return figures


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.clone_speed", description=__doc__)
    parser.add_argument("-n", type=int, default=20, help="documents")
    parser.add_argument("--kb", type=int, default=20, help="KB per document")
    parser.add_argument("--modes", default="lite,full", help="comma-separated: lite, full")
    args = parser.parse_args(argv)
    seed = time.time_ns() % 1_000_000
    figures: dict[str, object] = {"document_bytes": args.kb * 1000}
    for mode in args.modes.split(","):
        figures[mode] = run_mode(mode, args.n, args.kb * 1000, seed)
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
