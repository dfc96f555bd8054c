"""Lite mode's docreader refuses an upload over SLUICE_DOCREADER_MAX_INPUT_MB, and the worker
takes that RESOURCE_EXHAUSTED as final: the knowledge fails on its first attempt, naming the
limit, without retries."""

from __future__ import annotations

import io
import time
from pathlib import Path

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import MAX_UPLOAD_BYTES, lite_stack

WAIT_S = 180


def test_an_upload_over_the_docreader_cap_fails_at_once(tmp_path: Path) -> None:
    # Under the API's cap, over the docreader's: only the docreader refuses it.
    oversized = b"over the docreader cap\n" * ((MAX_UPLOAD_BYTES // 2) // 23)
    assert 1 << 20 < len(oversized) < MAX_UPLOAD_BYTES
    # A retry would wait 10 minutes: failing within WAIT_S means the first failure was final.
    env = {"SLUICE_DOCREADER_MAX_INPUT_MB": "1", "SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": "600"}
    with lite_stack(tmp_path, env) as stack, SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("docreader-cap")
        knowledge = client.upload_file(kb.id, io.BytesIO(oversized), file_name="big.txt")
        events = []
        deadline = time.monotonic() + WAIT_S
        for event in client.watch_spans(knowledge.id):
            events.append(event)
            assert time.monotonic() < deadline, "processing did not finish in time"
            if event.type == v1.WatchEventType.END:
                break
        failed = client.get_knowledge(knowledge.id)
        assert failed.parse_status == v1.ParseStatus.FAILED
        assert failed.error_message.startswith("docreader: RESOURCE_EXHAUSTED")
        assert "input limit of 1 MiB" in failed.error_message
        docreader_failures = [
            span.error_message
            for event in events
            for span in event.spans
            if span.name == "docreader" and span.status == v1.SpanStatus.FAILED
        ]
        assert docreader_failures, "the docreader span never failed"
        assert not any("will retry" in message for message in docreader_failures)
        spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
        assert spans["docreader"].error_code == "DOCREADER_FAILED"
        assert spans["knowledge_processing"].status == v1.SpanStatus.FAILED
