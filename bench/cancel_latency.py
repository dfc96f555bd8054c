"""(d) CancelParse latency in full mode: the time from CancelParse returning to the worker
having stopped, while the round is in the docreader stage and while it is embedding.

"Stopped" is what the worker reports when it gets there: it removes what the round wrote
and closes the round's spans as cancelled, which a WatchSpans stream opened before the
cancel shows as the root span turning cancelled (the API would only close them itself
after 5 s, with another message, which the benchmark checks it did not). Each round
uploads a fresh document: a 3 MB HTML page (seconds of docreader work) for the docreader
stage, 3000 short paragraphs in chunks of 100 characters for the embedding stage, and is
cancelled a random moment (0-1 s) after the stage is seen running, so the cancel lands at
different points of the work. Side by side: how long the stage would still have run (the
same page read by the docreader uncancelled; the embedding stage's remaining chunks at its
own measured rate), i.e. what the cancel saved.

    .venv/bin/python -m bench.cancel_latency [-n 8] [--quick]
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.google.protobuf import Struct
from sluice_client._proto.sluice import v1

from bench.report import percentile, verdict, write_result
from tests.e2e.lifecycle_support import (
    ROOT,
    SMALL_CHUNKS,
    notes,
    recording,
    root_closed,
    running,
    slow_to_embed,
    slow_to_read,
)
from tests.e2e.stacks import Stack, full_stack
from workers.docreader_client import DocReaderClient

NAME = "cancel_latency"
TARGET_S = 2.0
WAIT_S = 300.0
WORKER_MESSAGE = "cancelled by the user"


@dataclass(frozen=True)
class Stop:
    latency_s: float
    cancel_rpc_s: float
    saved_s: float


def _number(values: Struct | None, key: str) -> float:
    """A number from a span's input or output struct (0 when absent)."""
    return float((values.to_dict() if values is not None else {}).get(key, 0))


def _cancel_once(
    client: SluiceClient,
    knowledge: v1.Knowledge,
    stage: str,
    rng: random.Random,
    remaining: Callable[[dict[str, v1.Span], float], float],
    max_delay_s: float = 1.0,
) -> Stop:
    with recording(client, knowledge.id) as spans:
        seen = spans.wait_for(running(stage), WAIT_S)
        # A random moment inside the stage: later than its end, the cancel would find the
        # next stage running (or none), and that is not what is measured.
        time.sleep(rng.uniform(0.0, max_delay_s))
        at_cancel = dict(spans.spans)
        asked = time.monotonic()
        client.cancel_parse(knowledge.id)
        returned = time.monotonic()
        stopped = spans.wait_for(root_closed, WAIT_S)
    final = spans.spans
    if final[ROOT].status != v1.SpanStatus.CANCELLED or final[stage].error_message != (
        WORKER_MESSAGE
    ):
        raise RuntimeError(f"{knowledge.id}: the worker did not stop the round itself: {final}")
    return Stop(
        latency_s=max(0.0, stopped - returned),
        cancel_rpc_s=returned - asked,
        saved_s=remaining(at_cancel, asked - seen),
    )


def _docreader_seconds(stack: Stack, body: bytes) -> float:
    """The same page read by the deployment's docreader, nobody stopping it."""
    with DocReaderClient(
        stack.env["SLUICE_DOCREADER_ADDRESS"], timeout_s=WAIT_S, max_message_bytes=64 << 20
    ) as docreader:
        start = time.perf_counter()
        docreader.read_file(io.BytesIO(body), file_name="page.html", file_type="html")
        return time.perf_counter() - start


def _embedding_left(spans: dict[str, v1.Span], running_for_s: float) -> float:
    span = spans["embedding"]
    done, total = _number(span.output, "chunks_embedded"), _number(span.input, "chunks")
    rate = done / running_for_s if running_for_s > 0 and done else 0.0
    return (total - done) / rate if rate else float("nan")


def _summary(stops: Sequence[Stop]) -> dict[str, float]:
    latencies = [s.latency_s for s in stops]
    saved = [s.saved_s for s in stops if s.saved_s == s.saved_s]
    return {
        "p50_s": round(statistics.median(latencies), 3),
        "p95_s": round(percentile(latencies, 0.95), 3),
        "max_s": round(max(latencies), 3),
        "median_cancel_rpc_s": round(statistics.median(s.cancel_rpc_s for s in stops), 3),
        "median_stage_seconds_saved": round(statistics.median(saved), 2) if saved else 0.0,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.cancel_latency", description=__doc__)
    parser.add_argument("-n", type=int, default=8, help="cancels per stage")
    parser.add_argument("--quick", action="store_true", help="3 cancels per stage")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.n
    rng = random.Random(20261130)
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp, full_stack(Path(tmp)) as stack:
        for name, process in stack.processes.items():
            if name.startswith("worker"):
                process.wait_for_line(r"Listening on", 120)
        with SluiceClient(stack.target, timeout=120) as client:
            kb = client.create_knowledge_base(f"bench-cancel-{time.time_ns()}")
            warm = client.upload_file(kb.id, io.BytesIO(notes("Warm-up")), file_name="warm.md")
            client.wait_until_done(warm.id, WAIT_S)
            read_s = _docreader_seconds(stack, slow_to_read("Reference"))
            stages: dict[str, list[Stop]] = {"docreader": [], "embedding": []}
            for n in range(rounds):
                page = client.upload_file(
                    kb.id, io.BytesIO(slow_to_read(f"Page{n}")), file_name=f"page-{n}.html"
                )
                stages["docreader"].append(
                    _cancel_once(
                        client,
                        page,
                        "docreader",
                        rng,
                        lambda _, ran: max(0.0, read_s - ran),
                        max_delay_s=min(1.0, read_s / 2),
                    )
                )
                log = client.upload_file(
                    kb.id,
                    io.BytesIO(slow_to_embed(f"Log{n}")),
                    file_name=f"log-{n}.md",
                    process_config=SMALL_CHUNKS,
                )
                stages["embedding"].append(
                    _cancel_once(client, log, "embedding", rng, _embedding_left)
                )
                print(
                    f"round {n + 1}/{rounds}: docreader {stages['docreader'][-1].latency_s:.3f} s,"
                    f" embedding {stages['embedding'][-1].latency_s:.3f} s",
                    flush=True,
                )
    figures: dict[str, object] = {"cancels_per_stage": rounds, "target_p50_s": TARGET_S}
    met = True
    for stage, stops in stages.items():
        summary = _summary(stops)
        figures[stage] = summary
        met = met and summary["p50_s"] < TARGET_S
        print(
            f"{stage}: cancel -> worker stopped p50 {summary['p50_s']:.3f} s, "
            f"p95 {summary['p95_s']:.3f} s, max {summary['max_s']:.3f} s "
            f"(CancelParse itself {summary['median_cancel_rpc_s']:.3f} s; the stage would "
            f"have run {summary['median_stage_seconds_saved']:.1f} s more); "
            + verdict(summary["p50_s"], TARGET_S, below=True)
        )
    figures["docreader_uncancelled_read_s"] = round(read_s, 2)
    figures["met"] = met
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
