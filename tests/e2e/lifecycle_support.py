"""Shared by the reparse, cancel and delete end-to-end tests: documents that are slow to
read or slow to embed, a recorder of one WatchSpans stream, and views of what a knowledge
left in the database, the index and storage."""

from __future__ import annotations

import base64
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from core.effective_config import DEFAULT_EMBEDDING
from storage.index.milvus_index import MilvusIndex
from tests.e2e.stacks import Stack
from workers.pipeline.stages.chunking import chunk_id

WAIT_S = 240.0
MODEL_KEY = DEFAULT_EMBEDDING.key  # the model new knowledge bases get
ROOT = "knowledge_processing"
# Many chunks that each embed quickly: a round that spends long in its embedding stage.
SMALL_CHUNKS = v1.ProcessConfig(chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0))
OPEN = {v1.SpanStatus.PENDING, v1.SpanStatus.RUNNING}


def chunking(size: int, overlap: int = 0) -> v1.ProcessConfig:
    return v1.ProcessConfig(chunking=v1.ChunkingConfig(chunk_size=size, chunk_overlap=overlap))


def notes(topic: str, paragraphs: int = 40) -> bytes:
    """Markdown whose chunk count depends clearly on the chunk size."""
    lines = [f"# {topic} operations log", ""]
    for n in range(paragraphs):
        if n % 10 == 0:
            lines += [f"## {topic} section {n // 10}", ""]
        lines += [f"Entry {n}: the {topic} crew checked pump {n} and wrote down its pressure.", ""]
    lines.append(f"The {topic} lighthouse keeper paints the railings turquoise every April.")
    return "\n".join(lines).encode()


def slow_to_embed(topic: str, paragraphs: int = 3000) -> bytes:
    """About 3000 short paragraphs: with SMALL_CHUNKS, thousands of embedding inputs."""
    return notes(topic, paragraphs)


def slow_to_read(topic: str) -> bytes:
    """About 3 MB of HTML (a big table and many paragraphs): seconds of docreader work."""
    rows = "".join(
        f"<tr><td>{topic} row {i}</td><td>value {i * 7}</td><td><b>bold {i}</b> text</td></tr>"
        for i in range(20_000)
    )
    paragraphs = "".join(
        f"<div><p>Paragraph {i} on <a href='/x{i}'>{topic} gates</a> and <em>pumps</em>.</p></div>"
        for i in range(15_000)
    )
    return (
        f"<html><head><title>{topic}</title></head><body><main><table>{rows}</table>"
        f"{paragraphs}</main></body></html>"
    ).encode()


def html_with_image(topic: str) -> bytes:
    """A small page with one embedded PNG, which the docreader extracts and Sluice stores
    (big enough not to count as an icon: at least 64 px a side and 512 bytes)."""
    uri = "data:image/png;base64," + base64.b64encode(_png(96, 72)).decode()
    return (
        f"<html><head><title>{topic}</title></head><body><main><h1>{topic} gauges</h1>"
        f"<p>The {topic} gauge panel is drawn below.</p><img src='{uri}' alt='panel'>"
        f"<p>The {topic} keeper reads the gauges at dawn.</p></main></body></html>"
    ).encode()


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        return struct.pack(">I", len(body)) + kind + body + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    # A gradient, so the compressed picture is not trivially small.
    rows = (b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(width * 3)) for y in range(height))
    pixels = zlib.compress(b"".join(rows))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def attempt_chunk_ids(knowledge_id: str, attempt: int, count: int) -> set[str]:
    """The ids round ``attempt`` gives its ``count`` text chunks (they are derived)."""
    return {chunk_id(knowledge_id, attempt, "text", index) for index in range(count)}


def chunk_ids(client: SluiceClient, knowledge_id: str) -> set[str]:
    return {c.id for c in client.list_chunks(knowledge_id, page_size=500)}


def searchable_chunk_ids(client: SluiceClient, kb_id: str, knowledge_id: str) -> set[str]:
    """Ids of the knowledge's chunks a search over its knowledge base returns (top 100:
    every indexed chunk of these small test knowledge bases)."""
    hits = client.search("pump pressure lighthouse gauges", [kb_id], top_k=100)
    return {hit.chunk_id for hit in hits if hit.knowledge_id == knowledge_id}


def index_rows(stack: Stack, knowledge_id: str) -> int | None:
    """The knowledge's rows in the index, read directly (full mode: the milvus-lite server
    is shared; lite mode keeps its index inside the server process)."""
    if stack.mode != "full":
        return None
    with MilvusIndex(stack.env["SLUICE_MILVUS_URI"]) as index:
        return index.count(MODEL_KEY, knowledge_id)


def stored_files(stack: Stack) -> set[Path]:
    return {p for p in stack.storage_dir.rglob("*") if p.is_file() and ".staging" not in p.parts}


class SpanRecorder:
    """Follows one WatchSpans stream on a thread: the latest span of each name, and when
    each change arrived."""

    def __init__(self, client: SluiceClient, knowledge_id: str) -> None:
        self.spans: dict[str, v1.Span] = {}
        self.events: list[tuple[float, v1.WatchSpansResponse]] = []
        self.ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(
            target=self._follow, args=(client, knowledge_id), daemon=True
        )
        self._thread.start()

    def _follow(self, client: SluiceClient, knowledge_id: str) -> None:
        try:
            for event in client.watch_spans(knowledge_id, timeout=WAIT_S):
                with self._changed:
                    self.events.append((time.monotonic(), event))
                    for span in event.spans:
                        self.spans[span.name] = span
                    self._changed.notify_all()
                if event.type == v1.WatchEventType.END:
                    break
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()

    def wait_for(self, condition: Callable[[dict[str, v1.Span]], bool], timeout: float) -> float:
        """Waits until ``condition(spans)`` holds; returns when (monotonic) it first did."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self.spans):
                remaining = deadline - time.monotonic()
                assert remaining > 0 and not self.ended, f"spans never got there: {self.spans}"
                self._changed.wait(remaining)
            return self.events[-1][0] if self.events else time.monotonic()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the watch did not end"


@contextmanager
def recording(client: SluiceClient, knowledge_id: str) -> Iterator[SpanRecorder]:
    recorder = SpanRecorder(client, knowledge_id)
    yield recorder
    recorder.join(WAIT_S)


def running(stage: str, **at_least: float) -> Callable[[dict[str, v1.Span]], bool]:
    """The stage is running and its outputs have reached ``at_least``."""

    def check(spans: dict[str, v1.Span]) -> bool:
        span = spans.get(stage)
        if span is None or span.status != v1.SpanStatus.RUNNING:
            return False
        outputs = span.output.to_dict() if span.output is not None else {}
        return all(float(outputs.get(k, 0)) >= v for k, v in at_least.items())

    return check


def root_closed(spans: dict[str, v1.Span]) -> bool:
    root = spans.get(ROOT)
    return root is not None and root.status not in OPEN


def done(client: SluiceClient, knowledge_id: str) -> v1.Knowledge:
    return client.wait_until_done(knowledge_id, WAIT_S)
