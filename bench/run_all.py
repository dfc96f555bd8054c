"""`make bench`: every benchmark, one after another (each prints its figures and writes
bench/out/<name>.json); `--quick` passes their quick sizes.

    .venv/bin/python -m bench.run_all [--quick]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from bench import (
    cancel_latency,
    chunker_speed,
    enrichment_throughput,
    formats,
    graph_extraction,
    graph_store,
    ingest_throughput,
    keyword_search,
    lite_memory,
    model_speed,
    observability_overhead,
    ocr_languages,
    recall,
    time_to_searchable,
    upload_stream,
    watch_fanout,
    zh_segmentation,
)

BENCHMARKS: tuple[tuple[str, Callable[[Sequence[str]], dict[str, object]]], ...] = (
    ("ingest_throughput", ingest_throughput.main),
    ("upload_stream", upload_stream.main),
    ("time_to_searchable", time_to_searchable.main),
    ("cancel_latency", cancel_latency.main),
    ("formats", formats.main),
    ("watch_fanout", watch_fanout.main),
    ("lite_memory", lite_memory.main),
    ("keyword_search", keyword_search.main),
    ("zh_segmentation", zh_segmentation.main),
    ("ocr_languages", ocr_languages.main),
    ("recall", recall.main),
    ("chunker_speed", chunker_speed.main),
    ("model_speed", model_speed.main),
    ("enrichment_throughput", enrichment_throughput.main),
    ("graph_store", graph_store.main),
    ("graph_extraction", graph_extraction.main),
    ("observability_overhead", observability_overhead.main),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.run_all", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes (about 2 minutes)")
    args = parser.parse_args(argv)
    missed = []
    for name, run in BENCHMARKS:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        figures = run(["--quick"] if args.quick else [])
        print(f"== {name} took {time.perf_counter() - start:.0f} s\n", flush=True)
        if figures.get("met") is False:
            missed.append(name)
    print("targets missed: " + (", ".join(missed) if missed else "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
