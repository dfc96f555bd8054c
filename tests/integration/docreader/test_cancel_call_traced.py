"""With tracing on, the docreader client's calls go through the CLIENT span interceptor: a
stopped read is still cancelled within a poll, its span ends CANCELLED, and the next call on
the channel is a span of its own. Run in a child process, as tracing is the process's global
tracer provider (installed there before the client opens its channel)."""

from __future__ import annotations

import json
import os
import subprocess

from tests.support.fixtures import DOCREADER_MESSAGE_LIMIT
from tests.support.processes import PYTHONPATH, REPO, python

_SCRIPT = """
import io, json, sys, time
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

from workers.docreader_client import DocReaderCancelled, DocReaderClient

target, limit = sys.argv[1], int(sys.argv[2])
rows = "".join(f"<tr><td>row {i}</td><td><b>value {i}</b></td></tr>" for i in range(200_000))
slow = f"<html><body><table>{rows}</table></body></html>".encode()
with DocReaderClient(target, timeout_s=60, max_message_bytes=limit) as client:
    started = time.monotonic()
    try:
        client.read_file(io.BytesIO(slow), file_name="slow.html", file_type="html",
                         should_stop=lambda: time.monotonic() - started > 0.5)
        cancelled = False
    except DocReaderCancelled:
        cancelled = True
    stopped_after = time.monotonic() - started
    markdown = client.read(b"# Next", file_name="n.md", file_type="md").markdown
deadline = time.monotonic() + 5
while len(exporter.get_finished_spans()) < 2 and time.monotonic() < deadline:
    time.sleep(0.05)
print(json.dumps({
    "cancelled": cancelled,
    "stopped_after": stopped_after,
    "markdown": markdown,
    "spans": [
        [s.name, s.kind.name, s.status.status_code.name, s.attributes["rpc.grpc.status_code"]]
        for s in exporter.get_finished_spans()
    ],
}))
"""


def test_a_stopped_read_is_cancelled_and_its_span_ends(docreader_target: str) -> None:
    done = subprocess.run(
        python("-c", _SCRIPT, docreader_target, str(DOCREADER_MESSAGE_LIMIT)),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["cancelled"] is True
    assert result["stopped_after"] < 1.5
    assert "Next" in result["markdown"]
    service = "sluice.docreader.v1.DocReaderService"
    assert result["spans"] == [
        [f"{service}/ReadUpload", "CLIENT", "ERROR", 1],  # CANCELLED
        [f"{service}/ReadStream", "CLIENT", "UNSET", 0],
    ]
