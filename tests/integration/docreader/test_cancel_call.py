"""A docreader call the caller stops: cancelled at once, however long the parse would take."""

from __future__ import annotations

import io
import threading
import time

import pytest

from workers.docreader_client import DocReaderCancelled, DocReaderClient


def _slow_html() -> bytes:
    """About 30 MB of HTML: seconds of parsing, even for a fast converter."""
    rows = "".join(f"<tr><td>row {i}</td><td><b>value {i}</b></td></tr>" for i in range(200_000))
    paragraphs = "".join(f"<div><p>Line {i} <em>on gates</em>.</p></div>" for i in range(300_000))
    return f"<html><body><main><table>{rows}</table>{paragraphs}</main></body></html>".encode()


def test_should_stop_cancels_a_running_read_within_a_poll(client: DocReaderClient) -> None:
    started = time.monotonic()
    asked_from: set[int] = set()

    def should_stop() -> bool:
        asked_from.add(threading.get_ident())
        return time.monotonic() - started > 0.5

    with pytest.raises(DocReaderCancelled):
        client.read_file(
            io.BytesIO(_slow_html()),
            file_name="slow.html",
            file_type="html",
            should_stop=should_stop,
        )

    assert time.monotonic() - started < 1.5
    # Polled on the caller's own thread (the queue's cancel flag is bound to it).
    assert asked_from == {threading.get_ident()}
    # The channel stays usable for the next call.
    outcome = client.read(b"# Next\n\nStill works.", file_name="n.md", file_type="md")
    assert "Still works." in outcome.markdown


def test_a_read_nobody_stops_returns_its_outcome(client: DocReaderClient) -> None:
    outcome = client.read(
        b"# Gates\n\nOpen at dawn.", file_name="g.md", file_type="md", should_stop=lambda: False
    )
    assert "Open at dawn." in outcome.markdown
