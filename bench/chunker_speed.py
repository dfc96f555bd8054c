"""Chunker speed and chunk sizes: our Markdown chunker against chonkie's RecursiveChunker and
LangChain's RecursiveCharacterTextSplitter and MarkdownHeaderTextSplitter, on the same
deterministic mixed Markdown corpus (bench/mixed_markdown.py) in the same run.

All sizes are characters (code points): chonkie's chunker counts with its "character"
tokenizer (checked below), LangChain's with ``len``. Each round times every splitter over the
whole corpus, in a rotating order. Time is this process's CPU time (all four run in one
thread; on a shared machine wall time mostly measures the other jobs); a splitter's time is
its fastest round, the one least disturbed; the median and the wall-clock figure are printed
too. MB/s are megabytes (10^6) of UTF-8 input per second.

    .venv/bin/python -m bench.chunker_speed            # 10 MB, 5 rounds; --quick: 2 MB, 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from chonkie import RecursiveChunker
from langchain_text_splitters import MarkdownHeaderTextSplitter, RecursiveCharacterTextSplitter

from bench.mixed_markdown import mixed_corpus
from bench.report import write_result
from workers.chunker import ChunkerConfig, split_markdown
from workers.chunker.html_tables import normalize_html_tables

NAME = "chunker_speed"
CHUNK_SIZE = 512
CHUNK_OVERLAP = 80
TARGET_OVER_CHONKIE = 1.0


@dataclass(frozen=True)
class _Splitter:
    name: str
    # One document → the lengths of its chunks in characters.
    split: Callable[[str], list[int]]


def _ours() -> _Splitter:
    config = ChunkerConfig(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP)

    def split(text: str) -> list[int]:
        # What the chunking stage runs (workers/pipeline/stages/chunking.py).
        return [len(c.content) for c in split_markdown(normalize_html_tables(text), config)]

    return _Splitter("sluice", split)


def _chonkie() -> _Splitter:
    chunker = RecursiveChunker(tokenizer="character", chunk_size=CHUNK_SIZE)
    # Like with like: chonkie's chunk_size must be characters, as ours is.
    assert chunker.tokenizer.count_tokens("ab 你好 мир") == len("ab 你好 мир"), "not characters"
    return _Splitter("chonkie_recursive", lambda text: [len(c.text) for c in chunker.chunk(text)])


def _langchain_recursive() -> _Splitter:
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP, length_function=len
    )
    return _Splitter("langchain_recursive", lambda text: list(map(len, splitter.split_text(text))))


def _langchain_markdown_headers() -> _Splitter:
    # Splits at headings only: no size limit, so its oversize counts are for information.
    splitter = MarkdownHeaderTextSplitter(
        [("#", "h1"), ("##", "h2"), ("###", "h3"), ("####", "h4")]
    )
    return _Splitter(
        "langchain_markdown_headers",
        lambda text: [len(d.page_content) for d in splitter.split_text(text)],
    )


@dataclass
class _Measured:
    cpu_s: list[float]
    wall_s: list[float]
    lengths: list[int]


def _measure(
    splitters: Sequence[_Splitter], documents: Sequence[str], rounds: int
) -> dict[str, _Measured]:
    measured = {s.name: _Measured([], [], []) for s in splitters}
    for r in range(rounds):
        for splitter in [*splitters[r % len(splitters) :], *splitters[: r % len(splitters)]]:
            wall, cpu = time.perf_counter(), time.process_time()
            lengths = [n for document in documents for n in splitter.split(document)]
            record = measured[splitter.name]
            record.cpu_s.append(time.process_time() - cpu)
            record.wall_s.append(time.perf_counter() - wall)
            record.lengths = lengths
    return measured


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.chunker_speed", description=__doc__)
    parser.add_argument("--mb", type=float, default=10.0, help="corpus size, MB of UTF-8")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2 MB, 3 rounds")
    args = parser.parse_args(argv)
    size_mb, rounds = (2.0, 3) if args.quick else (args.mb, args.rounds)
    documents = mixed_corpus(int(size_mb * 1_000_000))
    megabytes = sum(len(d.encode("utf-8")) for d in documents) / 1_000_000
    load_before = os.getloadavg()[0]
    splitters = [_ours(), _chonkie(), _langchain_recursive(), _langchain_markdown_headers()]
    measured = _measure(splitters, documents, rounds)
    load_after = os.getloadavg()[0]
    print(
        f"{len(documents)} documents, {megabytes:.2f} MB, chunks of {CHUNK_SIZE}/{CHUNK_OVERLAP}, "
        f"{rounds} rounds, load average {load_before:.1f} → {load_after:.1f}"
    )
    results: dict[str, dict[str, object]] = {}
    ours_best = min(measured["sluice"].cpu_s)
    for name, record in measured.items():
        over = [n for n in record.lengths if n > CHUNK_SIZE]
        best, median = min(record.cpu_s), statistics.median(record.cpu_s)
        results[name] = {
            "mb_per_cpu_s": round(megabytes / best, 2),
            "mb_per_cpu_s_median": round(megabytes / median, 2),
            "mb_per_wall_s": round(megabytes / min(record.wall_s), 2),
            "ours_speed_over_this": round(best / ours_best, 3),
            "chunks": len(record.lengths),
            "chunks_over_size": len(over),
            "max_chunk_chars": max(record.lengths),
        }
        print(
            f"  {name:27} {megabytes / best:6.2f} MB/CPU-s (median {megabytes / median:6.2f},"
            f" wall {megabytes / min(record.wall_s):6.2f})  sluice = {best / ours_best:4.2f}x"
            f"  {len(record.lengths):6} chunks, {len(over):5} over {CHUNK_SIZE}"
            f" (max {max(record.lengths)})"
        )
    ratio = results["chonkie_recursive"]["ours_speed_over_this"]
    met = isinstance(ratio, float) and ratio >= TARGET_OVER_CHONKIE
    print(
        f"sluice / chonkie speed: {ratio}x (target ≥ {TARGET_OVER_CHONKIE}): "
        f"{'met' if met else 'MISSED'}"
    )
    figures: dict[str, object] = {
        "documents": len(documents),
        "megabytes": round(megabytes, 2),
        "chunk_size": CHUNK_SIZE,
        "chunk_overlap": CHUNK_OVERLAP,
        "rounds": rounds,
        "load_average": [round(load_before, 2), round(load_after, 2)],
        "splitters": results,
        "target_over_chonkie": TARGET_OVER_CHONKIE,
        "met": met,
    }
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
