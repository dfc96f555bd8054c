"""(u) FAQ import throughput: entries/s of a CSV import against the raw embedding model,
in one run.

Import: a lite deployment (one process: API, the in-process executor, SQLite, milvus-lite)
takes a CSV of N entries (each a standard question, one similar question and an answer)
through ImportFAQFile; entries/s = N / the wall time from the call to the job's completion
(WatchFAQImport). Baseline: the knowledge base's local model alone embedding the texts an
entry is indexed by (its standard and similar question, combined, as the default index
mode writes them) in the embedding stage's batches, measured in-process before the stack
starts, on the same two cores. The ratio says what the import adds to the embedding itself:
parsing, the four checks, the database rows, the index writes, progress.

    .venv/bin/python -m bench.faq_import [--entries N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.baseline import batch_size, embed_document, warm_embedder
from bench.report import verdict, write_result
from tests.e2e.faq_import_support import FaqCalls, Row, csv_file
from tests.e2e.stacks import lite_stack

NAME = "faq_import"
# The import should run at no less than this share of the raw model's speed.
TARGET_RATIO = 0.5


def corpus(count: int) -> list[Row]:
    topics = ("gate", "tide", "ferry", "berth", "pilot", "customs", "crane", "fuel")
    return [
        Row(
            f"How does the {topics[n % len(topics)]} schedule {n} work on weekdays?",
            (f"Schedule {n} runs every {n % 50 + 10} minutes from the east quay.",),
            (f"{topics[n % len(topics)]} timetable {n}",),
        )
        for n in range(count)
    ]


def indexed_texts(rows: Sequence[Row]) -> list[str]:
    """What the combined question index embeds for each entry."""
    return ["\n".join([row.q, *row.similar]) for row in rows]


def raw_entries_per_second(texts: Sequence[str]) -> float:
    embedder = warm_embedder(texts)
    started = time.perf_counter()
    embed_document(embedder, texts)
    return len(texts) / (time.perf_counter() - started)


def import_entries_per_second(rows: Sequence[Row], data_dir: Path) -> tuple[float, dict[str, int]]:
    with lite_stack(data_dir) as stack:
        calls = FaqCalls(stack)
        try:
            # One small import first: the model loaded, the collection made.
            calls.done(calls.import_list(calls.faq_kb(), rows[:8]).job_id)
            kb = calls.faq_kb()
            data = csv_file(rows)
            started = time.perf_counter()
            final = calls.done(calls.import_file(kb, "bench.csv", data).job_id)
            elapsed = time.perf_counter() - started
        finally:
            calls.close()
    counts = {
        "succeeded": final.succeeded,
        "failed": final.failed,
        "skipped": final.skipped,
        "partially_failed": final.partially_failed,
    }
    return len(rows) / elapsed, counts


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.faq_import", description=__doc__)
    parser.add_argument("--entries", type=int, default=10_000)
    args = parser.parse_args(argv)
    rows = corpus(args.entries)
    raw = raw_entries_per_second(indexed_texts(rows))
    with tempfile.TemporaryDirectory(prefix="bench-faq-") as folder:
        imported, counts = import_entries_per_second(rows, Path(folder))
    ratio = imported / raw
    figures: dict[str, object] = {
        "entries": args.entries,
        "embed_batch_size": batch_size(),
        "import_entries_per_s": round(imported, 1),
        "raw_embedding_entries_per_s": round(raw, 1),
        "ratio": round(ratio, 3),
        "outcomes": counts,
        "verdict": verdict(ratio, TARGET_RATIO),
    }
    print(figures)
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
