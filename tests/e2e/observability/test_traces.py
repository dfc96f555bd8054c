"""One ingestion round is one trace: the API's upload span, the worker's task and stage spans
and the docreader's call, each exported by its own process over OTLP to a real receiver,
sharing one trace id with the parent links of the calls that caused them."""

from __future__ import annotations

import io
import json
import time
import uuid
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, full_stack
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan, otlp_receiver

UPLOAD = "/sluice.v1.KnowledgeService/CreateFromFile"
TASK = "task workers.tasks.process_document"
READ_UPLOAD = "/sluice.docreader.v1.DocReaderService/ReadUpload"
SERVER, CONSUMER = 2, 5  # OTLP span kinds
WAIT_S = 180


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, OtlpReceiver]]:
    with otlp_receiver() as receiver:
        env = {
            "SLUICE_OTLP_ENDPOINT": receiver.endpoint,
            # The SDK's batch delay (OTel's own variable): spans reach the receiver in moments.
            "OTEL_BSP_SCHEDULE_DELAY": "200",
        }
        with full_stack(tmp_path_factory.mktemp("traces"), workers=1, extra_env=env) as stack:
            yield stack, receiver


def _ingest(stack: Stack) -> str:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(f"traces-{uuid.uuid4().hex[:8]}")
        body = b"# Tide tables\n\nThe harbour master posts the tide tables every Monday.\n"
        knowledge = client.upload_file(kb.id, io.BytesIO(body), file_name="tides.md")
        deadline = time.monotonic() + WAIT_S
        for event in client.watch_spans(knowledge.id):
            assert time.monotonic() < deadline, "processing did not finish in time"
            if event.type == v1.WatchEventType.END:
                assert event.parse_status == v1.ParseStatus.COMPLETED
                return knowledge.id
    raise AssertionError("the watch ended without an END event")


def _one(spans: list[ReceivedSpan], service: str, name: str) -> ReceivedSpan:
    found = [s for s in spans if s.service == service and s.name == name]
    assert len(found) == 1, f"{service} {name}: {found}"
    return found[0]


def _round_is_in(spans: list[ReceivedSpan]) -> bool:
    names = {(s.service, s.name) for s in spans}
    return {
        ("sluice-api", UPLOAD),
        ("sluice-worker", TASK),
        ("sluice-worker", "stage embedding"),
        ("sluice-docreader", READ_UPLOAD),
    } <= names


def test_an_upload_is_one_trace_across_the_api_the_worker_and_the_docreader(
    traced: tuple[Stack, OtlpReceiver],
) -> None:
    stack, receiver = traced
    _ingest(stack)
    spans = receiver.wait_for(_round_is_in)

    upload = _one(spans, "sluice-api", UPLOAD)
    assert upload.parent_span_id == "" and upload.kind == SERVER
    in_trace = [s for s in spans if s.trace_id == upload.trace_id]
    task = _one(in_trace, "sluice-worker", TASK)
    assert task.parent_span_id == upload.span_id and task.kind == CONSUMER
    assert task.attributes["sluice.task.attempt"] == "1"
    stages = {s.name: s for s in in_trace if s.name.startswith("stage ")}
    assert {"stage docreader", "stage chunking", "stage embedding"} <= stages.keys()
    assert all(stage.parent_span_id == task.span_id for stage in stages.values())
    read = _one(in_trace, "sluice-docreader", READ_UPLOAD)
    assert read.parent_span_id == stages["stage docreader"].span_id and read.kind == SERVER

    # The docreader's access record of that call carries the same trace.
    records = [json.loads(line) for line in stack.processes["docreader"].lines if line[:1] == "{"]
    access = [r for r in records if r.get("logger") == "sluice.access"]
    assert any(
        r["method"] == READ_UPLOAD and r["trace_id"] == upload.trace_id and r["code"] == "OK"
        for r in access
    ), access
