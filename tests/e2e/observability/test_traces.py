"""One ingestion round is one trace: the API's upload span, the worker's task and stage spans
and the docreader's call, each exported by its own process over OTLP to a real receiver,
sharing one trace id with the parent links of the calls that caused them. Lite mode (one
process, service "sluice") gives the same trace through its in-process executor; the full
mode's worker runs --concurrency 2, so its spans come from forked children. An enrichment
task (the summary, against a real chat-completions server) joins its upload's trace."""

from __future__ import annotations

import io
import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_chat_server import ChatServer
from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan, otlp_receiver

UPLOAD = "/sluice.v1.KnowledgeService/CreateFromFile"
TASK = "task workers.tasks.process_document"
SUMMARY_TASK = "task workers.tasks.summarize_knowledge"
SUMMARY = "Tide tables for the harbour, posted on Mondays."
READ_UPLOAD = "/sluice.docreader.v1.DocReaderService/ReadUpload"
DOCREADER_CALL = READ_UPLOAD.lstrip("/")  # the worker's CLIENT span of that call
SERVER, CLIENT, CONSUMER = 2, 3, 5  # OTLP span kinds
WAIT_S = 180
BODY = b"# Tide tables\n\nThe harbour master posts the tide tables every Monday.\n"


@pytest.fixture(scope="module", params=["lite", "full"])
def traced(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Stack, OtlpReceiver]]:
    with otlp_receiver() as receiver:
        env = {
            "SLUICE_OTLP_ENDPOINT": receiver.endpoint,
            # The SDK's batch delay (OTel's own variable): spans reach the receiver in moments.
            "OTEL_BSP_SCHEDULE_DELAY": "200",
            # The summary's chat server is on loopback, which the SSRF rules refuse.
            "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
        }
        data_dir = tmp_path_factory.mktemp(f"traces-{request.param}")
        if request.param == "lite":
            with lite_stack(data_dir, env) as stack:
                yield stack, receiver
        else:
            # Two forked children: their batched spans must still reach the receiver.
            workers = ("--concurrency", "2")
            with full_stack(data_dir, workers=1, extra_env=env, worker_args=workers) as stack:
                yield stack, receiver


def _services(stack: Stack) -> tuple[str, str, str]:
    """The service names of the API's, the worker's and the docreader's spans."""
    if stack.mode == "lite":
        return "sluice", "sluice", "sluice"
    return "sluice-api", "sluice-worker", "sluice-docreader"


def _ingest(stack: Stack, config: v1.KnowledgeBaseConfig | None = None) -> str:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(f"traces-{uuid.uuid4().hex[:8]}", config=config)
        knowledge = client.upload_file(kb.id, io.BytesIO(BODY), file_name="tides.md")
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


def _round_is_in(services: tuple[str, str, str]) -> Callable[[list[ReceivedSpan]], bool]:
    api, worker, docreader = services

    def found(spans: list[ReceivedSpan]) -> bool:
        names = {(s.service, s.name) for s in spans}
        expected = {
            (api, UPLOAD),
            (worker, TASK),
            (worker, "stage embedding"),
            (worker, DOCREADER_CALL),
            (docreader, READ_UPLOAD),
        }
        return expected <= names

    return found


def test_an_upload_is_one_trace_across_the_api_the_worker_and_the_docreader(
    traced: tuple[Stack, OtlpReceiver],
) -> None:
    stack, receiver = traced
    api, worker, docreader = _services(stack)
    _ingest(stack)
    spans = receiver.wait_for(_round_is_in((api, worker, docreader)))

    upload = _one(spans, api, UPLOAD)
    assert upload.parent_span_id == "" and upload.kind == SERVER
    in_trace = [s for s in spans if s.trace_id == upload.trace_id]
    task = _one(in_trace, worker, TASK)
    assert task.parent_span_id == upload.span_id and task.kind == CONSUMER
    assert task.attributes["sluice.task.attempt"] == "1"
    stages = {s.name: s for s in in_trace if s.name.startswith("stage ")}
    assert {"stage docreader", "stage chunking", "stage embedding"} <= stages.keys()
    assert all(stage.parent_span_id == task.span_id for stage in stages.values())
    call = _one(in_trace, worker, DOCREADER_CALL)
    assert call.parent_span_id == stages["stage docreader"].span_id and call.kind == CLIENT
    assert {k: v for k, v in call.attributes.items() if k.startswith("rpc.")} == {
        "rpc.system": "grpc",
        "rpc.service": "sluice.docreader.v1.DocReaderService",
        "rpc.method": "ReadUpload",
        "rpc.grpc.status_code": "0",
    }
    read = _one(in_trace, docreader, READ_UPLOAD)
    assert read.parent_span_id == call.span_id and read.kind == SERVER

    # The access records of the upload and of the docreader call carry the same trace (the
    # upload's, its very span: the record is written inside it).
    api_access = _access_records(stack, "api")
    record = next(r for r in api_access if r["method"] == UPLOAD)
    assert (record["trace_id"], record["span_id"]) == (upload.trace_id, upload.span_id)
    assert record["request_bytes"] > len(BODY)
    read_records = [
        r
        for r in _access_records(stack, "docreader" if stack.mode == "full" else "api")
        if r["method"] == READ_UPLOAD
    ]
    assert [(r["trace_id"], r["span_id"], r["code"]) for r in read_records] == [
        (upload.trace_id, read.span_id, "OK")
    ]


def test_an_enrichment_task_joins_the_upload_trace(traced: tuple[Stack, OtlpReceiver]) -> None:
    stack, receiver = traced
    api, worker, _ = _services(stack)
    with ChatServer(answer=lambda _: SUMMARY) as chat:
        model = v1.ModelConfig(provider="openai", model="writer-1", base_url=chat.base_url)
        config = v1.KnowledgeBaseConfig(summary=v1.SummaryConfig(enabled=True, model=model))
        _ingest(stack, config)
        assert [r.body["model"] for r in chat.log()] == ["writer-1"]

    def joined(got: list[ReceivedSpan]) -> bool:
        """The summary's task, its parent and its trace's upload have all arrived."""
        tasks = [s for s in got if s.name == SUMMARY_TASK]
        ids = {s.span_id for s in got}
        uploads = {s.trace_id for s in got if s.name == UPLOAD}
        return any(t.parent_span_id in ids and t.trace_id in uploads for t in tasks)

    spans = receiver.wait_for(joined)
    summary = _one(spans, worker, SUMMARY_TASK)
    assert summary.kind == CONSUMER
    in_trace = [s for s in spans if s.trace_id == summary.trace_id]
    upload = _one(in_trace, api, UPLOAD)
    assert upload.parent_span_id == ""
    # Enqueued from within the round (a span of the worker's, in the same trace).
    parent = next(s for s in in_trace if s.span_id == summary.parent_span_id)
    assert parent.service == worker
    assert _one(in_trace, worker, TASK).trace_id == upload.trace_id


def _access_records(stack: Stack, process: str) -> list[dict[str, Any]]:
    lines = stack.processes[process].lines
    records = [json.loads(line) for line in lines if line[:1] == "{"]
    return [r for r in records if r.get("logger") == "sluice.access"]


def test_a_sample_ratio_of_zero_exports_no_span(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        env = {
            "SLUICE_OTLP_ENDPOINT": receiver.endpoint,
            "SLUICE_TRACE_SAMPLE_RATIO": "0",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
        }
        with lite_stack(tmp_path, env) as stack:
            _ingest(stack)
            time.sleep(2)  # ten export rounds: a recorded span would have gone out by now
        assert receiver.spans() == []
