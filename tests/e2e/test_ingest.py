"""The spine end to end over real gRPC, in lite mode and in full mode.

Full mode runs API, docreader, two RQ worker processes and a milvus-lite server as separate
processes on PostgreSQL and Redis; lite mode is the single `make run` process. Both embed
with the real local default model (universal-sentence-encoder-multilingual-3).
"""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc
from sluice_client import AlreadyExists, InvalidArgument, ResourceExhausted, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import MAX_UPLOAD_BYTES, Stack

STAGES = ["docreader", "chunking", "embedding", "multimodal", "postprocess"]
WAIT_S = 180


def _document(topic: str) -> bytes:
    """A Markdown document with a sentence that only it contains."""
    paragraphs = [f"# Field notes on {topic}", ""]
    for n in range(12):
        paragraphs.append(
            f"## Section {n}\n\nParagraph {n} of the {topic} notes explains routine "
            f"maintenance of pumps, valves and sluice gates in plain words.\n"
        )
    paragraphs.append(f"The {topic} lighthouse keeper paints the railings turquoise every April.")
    return "\n".join(paragraphs).encode()


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"e2e-{uuid.uuid4().hex[:8]}")


def _watch_to_end(client: SluiceClient, knowledge_id: str) -> list[v1.WatchSpansResponse]:
    events = []
    deadline = time.monotonic() + WAIT_S
    for event in client.watch_spans(knowledge_id):
        events.append(event)
        assert time.monotonic() < deadline, "processing did not finish in time"
        if event.type == v1.WatchEventType.END:
            break
    return events


def _final_statuses(events: list[v1.WatchSpansResponse]) -> dict[str, v1.SpanStatus]:
    statuses: dict[str, v1.SpanStatus] = {}
    for event in events:
        for span in event.spans:
            statuses[span.name] = span.status
    return statuses


def test_multi_frame_upload_is_watched_to_completion_and_found_by_search(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    body = _document("Kittiwake")
    knowledge = client.upload_file(
        kb.id, io.BytesIO(body), file_name="kittiwake.md", chunk_size=256
    )
    assert knowledge.parse_status == v1.ParseStatus.PENDING
    assert knowledge.enable_status == v1.EnableStatus.DISABLED
    assert knowledge.file_size == len(body)

    events = _watch_to_end(client, knowledge.id)
    assert events[0].type == v1.WatchEventType.SNAPSHOT
    assert events[-1].type == v1.WatchEventType.END
    assert events[-1].parse_status == v1.ParseStatus.COMPLETED
    statuses = _final_statuses(events)
    assert [statuses[s] for s in STAGES] == [
        v1.SpanStatus.DONE,
        v1.SpanStatus.DONE,
        v1.SpanStatus.DONE,
        v1.SpanStatus.SKIPPED,
        v1.SpanStatus.SKIPPED,
    ]
    # The stream carried the progress itself, not only the end state.
    assert any(e.type == v1.WatchEventType.SPAN for e in events)

    done = client.get_knowledge(knowledge.id)
    assert done.parse_status == v1.ParseStatus.COMPLETED
    assert done.enable_status == v1.EnableStatus.ENABLED
    spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
    chunking = _outputs(spans["chunking"])
    assert chunking["chunks_written"] == chunking["chunks_planned"]
    assert float(str(chunking["chunks_written"])) > 1
    assert _outputs(spans["embedding"])["chunks_indexed"] == chunking["chunks_written"]

    hits = client.search("Who paints the railings turquoise?", [kb.id], top_k=3)
    assert hits and hits[0].knowledge_id == knowledge.id
    assert "turquoise every April" in hits[0].content


def _outputs(span: v1.Span) -> dict[str, object]:
    assert span.output is not None
    return dict(span.output.to_dict())


def test_duplicate_upload_is_refused_with_the_existing_knowledge(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    body = _document("Puffin")
    first = client.upload_file(kb.id, io.BytesIO(body), file_name="puffin.md")
    with pytest.raises(AlreadyExists) as refused:
        client.upload_file(kb.id, io.BytesIO(body), file_name="puffin-copy.md")
    assert refused.value.existing_knowledge_id == first.id


def test_same_content_as_md_and_txt_makes_two_knowledges(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    body = _document("Guillemot")
    as_md = client.upload_file(kb.id, io.BytesIO(body), file_name="guillemot.md")
    as_txt = client.upload_file(kb.id, io.BytesIO(body), file_name="guillemot.txt")
    assert as_md.id != as_txt.id
    assert {as_md.file_type, as_txt.file_type} == {"md", "txt"}


@pytest.mark.parametrize(
    ("file_name", "reason"),
    [
        ("tool.exe", "file type 'exe' is not supported"),
        ("clip.mp4", "uploading video files is not supported yet"),
    ],
)
def test_files_outside_the_gate_are_invalid_arguments(
    client: SluiceClient, kb: v1.KnowledgeBase, file_name: str, reason: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        client.upload_file(kb.id, io.BytesIO(b"binary"), file_name=file_name)
    assert reason in refused.value.message
    assert refused.value.field_violations[0][0] == "header.file_name"


def test_manual_draft_waits_until_published(client: SluiceClient, kb: v1.KnowledgeBase) -> None:
    draft = client.create_manual(
        kb.id,
        "Harbour rules",
        "Boats moor at the east quay after the evening bell rings.",
        publish=False,
    )
    assert draft.parse_status == v1.ParseStatus.DRAFT
    time.sleep(2)
    assert client.get_knowledge(draft.id).parse_status == v1.ParseStatus.DRAFT
    assert not client.get_spans(draft.id).spans

    published = client.update_manual(draft.id, publish=True)
    assert published.parse_status == v1.ParseStatus.PENDING
    events = _watch_to_end(client, draft.id)
    assert events[-1].parse_status == v1.ParseStatus.COMPLETED
    assert _final_statuses(events)["docreader"] == v1.SpanStatus.SKIPPED
    hits = client.search("Where do boats moor after the evening bell?", [kb.id], top_k=3)
    assert hits[0].knowledge_id == draft.id


def _stored_files(stack: Stack) -> set[Path]:
    return {p for p in stack.storage_dir.rglob("*") if p.is_file()}


def test_upload_over_the_limit_is_refused_and_leaves_nothing(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    before_files = _stored_files(stack)
    before_rows = {k.id for k in client.list_knowledge(kb.id)}
    oversized = io.BytesIO(b"a" * (MAX_UPLOAD_BYTES + 1))
    with pytest.raises(ResourceExhausted):
        client.upload_file(kb.id, oversized, file_name="huge.txt")
    assert _stored_files(stack) == before_files
    assert {k.id for k in client.list_knowledge(kb.id)} == before_rows


def test_a_late_watcher_gets_the_full_picture(client: SluiceClient, kb: v1.KnowledgeBase) -> None:
    knowledge = client.upload_file(kb.id, io.BytesIO(_document("Gannet")), file_name="gannet.md")
    _watch_to_end(client, knowledge.id)
    late = list(client.watch_spans(knowledge.id))
    assert [e.type for e in late] == [v1.WatchEventType.SNAPSHOT, v1.WatchEventType.END]
    statuses = {s.name: s.status for s in late[0].spans}
    assert statuses["knowledge_processing"] == v1.SpanStatus.DONE
    assert [statuses[s] for s in STAGES[:3]] == [v1.SpanStatus.DONE] * 3


def test_a_table_gets_its_summary_step_under_postprocess(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    rows = "\n".join(f"Harbour {n},{n * 7},{n % 3 == 0}" for n in range(30))
    body = f"Port,Berths,Dredged\n{rows}\n".encode()
    knowledge = client.upload_file(kb.id, io.BytesIO(body), file_name="harbours.csv")
    _watch_to_end(client, knowledge.id)

    deadline = time.monotonic() + WAIT_S
    while True:
        spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
        step = spans.get("postprocess.datatable")
        if step is not None and step.status == v1.SpanStatus.DONE:
            break
        assert time.monotonic() < deadline, f"no finished table step: {step}"
        time.sleep(0.2)
    stage = spans["postprocess"]
    assert stage.status == v1.SpanStatus.SKIPPED
    assert "table summary runs as its own task" in str(_outputs(stage)["reason"])
    assert step.parent_id == stage.id
    assert _outputs(step)["table_column_chunks"] == 3


def test_health_and_reflection_answer_for_every_service(stack: Stack) -> None:
    with grpc.insecure_channel(stack.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in (
            "",
            "sluice.v1.KnowledgeService",
            "sluice.v1.KnowledgeBaseService",
            "sluice.v1.SearchService",
            "sluice.v1.TagService",
            "sluice.v1.GraphService",
        ):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = reflect.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
        )
        names = {s.name for r in replies for s in r.list_services_response.service}
        assert {
            "sluice.v1.KnowledgeService",
            "sluice.v1.SearchService",
            "sluice.v1.TagService",
            "sluice.v1.GraphService",
        } <= names


def test_move_knowledge_is_built_and_checks_its_request(stack: Stack) -> None:
    """It answered UNIMPLEMENTED until issue 15; an empty request is now refused for what it
    lacks."""
    with grpc.insecure_channel(stack.target) as channel:
        stub = knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.MoveKnowledge(knowledge_pb2.MoveKnowledgeRequest(), timeout=10)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ids" in (refused.value.details() or "")


def test_file_path_is_sanitised(client: SluiceClient, kb: v1.KnowledgeBase, stack: Stack) -> None:
    knowledge = client.upload_file(
        kb.id, io.BytesIO(_document("Shearwater")), file_name="../../escape.md"
    )
    assert all(stack.storage_dir in p.parents for p in _stored_files(stack))
    assert Path(knowledge.file_name).name == "escape.md"


def test_a_document_that_cannot_be_parsed_fails_with_its_reason_after_retries(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    knowledge = client.upload_file(
        kb.id, io.BytesIO(b'{"gate": "open", "level": '), file_name="broken.json"
    )
    events = _watch_to_end(client, knowledge.id)
    assert events[-1].parse_status == v1.ParseStatus.FAILED
    failed = client.get_knowledge(knowledge.id)
    assert failed.parse_status == v1.ParseStatus.FAILED
    assert failed.error_message.startswith("docreader: INVALID_ARGUMENT")
    assert "json" in failed.error_message.lower()
    spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
    assert spans["docreader"].status == v1.SpanStatus.FAILED
    assert spans["docreader"].error_code == "DOCREADER_FAILED"
    assert "will retry" not in spans["docreader"].error_message
    assert {spans[s].status for s in STAGES[1:]} == {v1.SpanStatus.CANCELLED}
    assert spans["knowledge_processing"].status == v1.SpanStatus.FAILED
    assert not list(client.list_chunks(knowledge.id))
