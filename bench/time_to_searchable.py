"""(c) Time from starting the upload of a 20 KB Markdown file until Search returns its unique
sentence, in lite mode and in full mode.

One document at a time (each distinct, with a sentence no other contains): the clock starts
before CreateFromFile, the client watches the spans (a push stream, which costs no CPU while
it waits) until the embedding stage is done, then searches for the sentence every 50 ms until
a result of this knowledge contains it. Searching from the moment the upload returns would
add the searches' own CPU to the two cores the pipeline is using. Before the measured
documents, one warm-up document is processed and searched (model load, collection creation).

    .venv/bin/python -m bench.time_to_searchable [-n 20] [--modes lite,full] [--quick]
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from bench.baseline import embed_document, embedding_texts, warm_embedder
from bench.corpus import markdown_document, words
from bench.report import percentile, write_result
from tests.e2e.stacks import Stack, full_stack, lite_stack

NAME = "time_to_searchable"
DOCUMENT_BYTES = 20_000
POLL_INTERVAL_S = 0.05
WAIT_S = 120.0
SEARCH_WAIT_S = 30.0

# The unique sentence of document n takes the n-th word of each list, so the documents (at
# most MAX_DOCUMENTS) share no word of it but its frame: sentences alike but for a number
# would rank at random among each other.
MAX_DOCUMENTS = 31
_BIRDS = words(
    "kittiwake puffin guillemot cormorant gannet fulmar shearwater petrel albatross tern skua "
    "razorbill heron egret bittern curlew plover dunlin sanderling godwit lapwing oystercatcher "
    "kingfisher wagtail nightjar woodcock bullfinch siskin redstart wheatear stonechat linnet"
)
_INSTRUMENTS = words(
    "accordion bagpipe banjo bassoon cello clarinet cornet didgeridoo dulcimer fiddle flute "
    "glockenspiel harmonica harp harpsichord kazoo lute mandolin marimba oboe ocarina piccolo "
    "recorder saxophone sitar tambourine trombone trumpet tuba ukulele vibraphone xylophone"
)
_FOODS = words(
    "apricots biscotti brioche chestnuts churros crumpets dumplings figs gnocchi haggis "
    "kippers lychees macarons marzipan meringues muffins nougat oatcakes pancakes pastries "
    "pistachios pretzels quinces risotto samosas scones strudel tamales toffee truffles waffles "
    "walnuts"
)
_PLACES = words(
    "belfry boathouse breakwater causeway chapel cliff dovecote dune embankment gazebo granary "
    "greenhouse jetty lighthouse marina mill observatory orchard pagoda pavilion pier quay "
    "rampart rooftop sandbar signalbox slipway steeple terrace tollhouse viaduct windmill"
)


@dataclass(frozen=True)
class Probe:
    file_name: str
    body: bytes
    sentence: str


def probe(n: int, seed: int) -> Probe:
    """Document n: 20 KB of prose ending with a sentence that only it contains."""
    sentence = (
        f"The {_BIRDS[n]} warden plays the {_INSTRUMENTS[n]} while eating "
        f"{_FOODS[n]} on the {_PLACES[n]}."
    )
    prose = markdown_document(seed * 1000 + n, DOCUMENT_BYTES - len(sentence), f"Notes {n}")
    return Probe(f"notes-{seed}-{n}.md", (prose + "\n" + sentence + "\n").encode(), sentence)


@dataclass(frozen=True)
class Sample:
    upload_s: float
    indexed_s: float
    found_s: float
    searches: int


def _wait_until_indexed(client: SluiceClient, knowledge_id: str) -> None:
    for event in client.watch_spans(knowledge_id, timeout=WAIT_S):
        for span in event.spans:
            if span.name == "embedding" and span.status == v1.SpanStatus.DONE:
                return
        if event.type == v1.WatchEventType.END:
            if event.parse_status != v1.ParseStatus.COMPLETED:
                raise RuntimeError(f"{knowledge_id} ended {event.parse_status.name}")
            return
    raise RuntimeError(f"the span stream of {knowledge_id} ended early")


def _found(client: SluiceClient, kb_id: str, knowledge_id: str, sentence: str) -> bool:
    hits = client.search(sentence, [kb_id], top_k=10)
    return any(h.knowledge_id == knowledge_id and sentence in h.content for h in hits)


def measure_one(client: SluiceClient, kb_id: str, document: Probe) -> Sample:
    start = time.perf_counter()
    knowledge = client.upload_file(kb_id, io.BytesIO(document.body), file_name=document.file_name)
    uploaded = time.perf_counter()
    _wait_until_indexed(client, knowledge.id)
    indexed = time.perf_counter()
    searches = 1
    while not _found(client, kb_id, knowledge.id, document.sentence):
        if time.perf_counter() - indexed > SEARCH_WAIT_S:
            raise RuntimeError(
                f"search did not return {document.file_name} {SEARCH_WAIT_S:g} s after indexing"
            )
        time.sleep(POLL_INTERVAL_S)
        searches += 1
    found = time.perf_counter()
    return Sample(uploaded - start, indexed - start, found - start, searches)


def _stack(mode: str, data_dir: Path, env: dict[str, str]) -> AbstractContextManager[Stack]:
    if mode == "lite":
        return lite_stack(data_dir, extra_env=env)
    if mode == "full":
        return full_stack(data_dir, extra_env=env)
    raise ValueError(f"unknown mode {mode!r} (lite, full)")


def run_mode(mode: str, env: dict[str, str], count: int, seed: int) -> list[Sample]:
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp,
        _stack(mode, Path(tmp), env) as stack,
    ):
        for name, process in stack.processes.items():
            if name.startswith("worker"):
                process.wait_for_line(r"Listening on", 120)
        with SluiceClient(stack.target, timeout=60) as client:
            kb = client.create_knowledge_base("bench-searchable")
            measure_one(client, kb.id, probe(count, seed))
            return [measure_one(client, kb.id, probe(n, seed)) for n in range(count)]


def raw_seconds_per_document(count: int, seed: int, threads: int) -> float:
    """Baseline: the median time the model alone takes to embed one probe's chunks."""
    texts = [
        embedding_texts(p.file_name, p.body.decode())
        for p in (probe(n, seed) for n in range(count))
    ]
    embedder = warm_embedder(texts[0], threads)
    seconds = []
    for document in texts:
        start = time.perf_counter()
        embed_document(embedder, document)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def summary(samples: Sequence[Sample]) -> dict[str, float]:
    found = [s.found_s for s in samples]
    return {
        "p50_s": round(percentile(found, 0.5), 3),
        "p95_s": round(percentile(found, 0.95), 3),
        "max_s": round(max(found), 3),
        "median_upload_s": round(statistics.median(s.upload_s for s in samples), 3),
        "median_indexed_s": round(statistics.median(s.indexed_s for s in samples), 3),
        "mean_searches": round(statistics.mean(s.searches for s in samples), 2),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.time_to_searchable", description=__doc__)
    parser.add_argument("-n", type=int, default=20, help="documents per mode")
    parser.add_argument("--modes", default="lite,full", help="comma-separated: lite, full")
    parser.add_argument(
        "--embed-threads", type=int, default=0, help="SLUICE_EMBED_THREADS (0: one per core)"
    )
    parser.add_argument("--quick", action="store_true", help="5 documents per mode")
    args = parser.parse_args(argv)
    count = 5 if args.quick else args.n
    if not 1 <= count <= MAX_DOCUMENTS:
        parser.error(f"-n must be between 1 and {MAX_DOCUMENTS}")
    env = {"SLUICE_EMBED_THREADS": str(args.embed_threads)}
    seed = time.time_ns() % 1_000_000
    raw = raw_seconds_per_document(count, seed, args.embed_threads)
    print(
        f"{count} documents of {DOCUMENT_BYTES // 1000} KB per mode; baseline: the model alone "
        f"embeds one document's chunks in {raw:.2f} s (median)"
    )
    figures: dict[str, object] = {
        "documents": count,
        "document_bytes": DOCUMENT_BYTES,
        "embed_threads": args.embed_threads,
        "raw_embed_s_per_document": round(raw, 3),
    }
    for mode in (m.strip() for m in args.modes.split(",") if m.strip()):
        result: dict[str, float] = summary(run_mode(mode, env, count, seed))
        result["p50_over_raw"] = round(result["p50_s"] / raw, 2)
        figures[mode] = result
        print(
            f"{mode}: p50 {result['p50_s']:.2f} s, p95 {result['p95_s']:.2f} s; "
            f"p50 / raw model = {result['p50_over_raw']:.2f} "
            f"(medians: upload returned at {result['median_upload_s']:.2f} s, "
            f"embedding done at {result['median_indexed_s']:.2f} s; "
            f"{result['mean_searches']:.1f} searches per document)"
        )
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
