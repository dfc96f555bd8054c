"""The `sluice` command line, run through main() against a real loopback server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2

# googleapis-common-protos ships .pyi files but no py.typed marker.
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from sluice.v1 import (
    common_pb2,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    knowledge_pb2,
    knowledge_pb2_grpc,
    search_pb2,
    search_pb2_grpc,
)
from sluice_client.cli import main

from .conftest import Serve

SNAPSHOT = knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT
SPAN = knowledge_pb2.WATCH_EVENT_TYPE_SPAN
END = knowledge_pb2.WATCH_EVENT_TYPE_END


def span(name: str, status: common_pb2.SpanStatus, **output: float) -> knowledge_pb2.Span:
    result = knowledge_pb2.Span(attempt=1, name=name, status=status)
    if output:
        result.output.update(output)
    return result


def watch_event(
    kind: knowledge_pb2.WatchEventType, *spans: knowledge_pb2.Span
) -> knowledge_pb2.WatchSpansResponse:
    return knowledge_pb2.WatchSpansResponse(type=kind, attempt=1, spans=spans)


class FakeKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """Uploads succeed; the watch breaks once (UNAVAILABLE) and then runs to the end."""

    def __init__(self, final_status: common_pb2.ParseStatus, error_message: str = "") -> None:
        self.final = knowledge_pb2.Knowledge(
            id="k-1", parse_status=final_status, error_message=error_message
        )
        self.final_span_status = (
            common_pb2.SPAN_STATUS_DONE
            if final_status == common_pb2.PARSE_STATUS_COMPLETED
            else common_pb2.SPAN_STATUS_FAILED
        )
        self.watches = 0
        self.requests: list[object] = []
        self.authorizations: list[str] = []

    def CreateFromFile(
        self,
        request_iterator: Iterator[knowledge_pb2.CreateFromFileRequest],
        context: grpc.ServicerContext,
    ) -> knowledge_pb2.CreateFromFileResponse:
        header = next(request_iterator).header
        size = sum(len(frame.data) for frame in request_iterator)
        knowledge = knowledge_pb2.Knowledge(
            id="k-1",
            file_name=header.file_name,
            file_size=size,
            metadata=header.metadata,
            parse_status=common_pb2.PARSE_STATUS_PENDING,
        )
        return knowledge_pb2.CreateFromFileResponse(knowledge=knowledge)

    def WatchSpans(
        self, request: knowledge_pb2.WatchSpansRequest, context: grpc.ServicerContext
    ) -> Iterator[knowledge_pb2.WatchSpansResponse]:
        self.watches += 1
        if self.watches == 1:
            yield watch_event(
                SNAPSHOT,
                span("docreader", common_pb2.SPAN_STATUS_PENDING),
                span("chunking", common_pb2.SPAN_STATUS_PENDING),
            )
            yield watch_event(SPAN, span("docreader", common_pb2.SPAN_STATUS_RUNNING))
            yield watch_event(SPAN, span("docreader", common_pb2.SPAN_STATUS_DONE, pages=3))
            context.abort(grpc.StatusCode.UNAVAILABLE, "server restarting")
        chunking = span("chunking", self.final_span_status, chunks_written=12)
        chunking.error_message = self.final.error_message
        yield watch_event(
            SNAPSHOT,
            span("docreader", common_pb2.SPAN_STATUS_DONE, pages=3),
            span("chunking", common_pb2.SPAN_STATUS_PENDING),
        )
        yield watch_event(SPAN, chunking)
        yield watch_event(END)

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        authorization = dict(context.invocation_metadata()).get("authorization", "")
        self.authorizations.append(str(authorization))
        if request.id == "bad id":
            violation = error_details_pb2.BadRequest.FieldViolation(
                field="id", description="must be a UUID"
            )
            packed = any_pb2.Any()
            packed.Pack(error_details_pb2.BadRequest(field_violations=[violation]))
            status = status_pb2.Status(
                code=grpc.StatusCode.INVALID_ARGUMENT.value[0],
                message="invalid id",
                details=[packed],
            )
            context.abort_with_status(rpc_status.to_status(status))
        return knowledge_pb2.GetKnowledgeResponse(knowledge=self.final)

    def ListKnowledge(
        self, request: knowledge_pb2.ListKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.ListKnowledgeResponse:
        self.requests.append(request)
        return knowledge_pb2.ListKnowledgeResponse(
            knowledges=[knowledge_pb2.Knowledge(id="k-1"), knowledge_pb2.Knowledge(id="k-2")]
        )

    def CreateFromURL(
        self, request: knowledge_pb2.CreateFromURLRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CreateFromURLResponse:
        self.requests.append(request)
        knowledge = knowledge_pb2.Knowledge(
            id="k-1",
            type=common_pb2.KNOWLEDGE_TYPE_URL,
            source=request.url,
            title=request.title or request.url,
            file_type=request.file_type or "url",
            parse_status=common_pb2.PARSE_STATUS_PENDING,
        )
        return knowledge_pb2.CreateFromURLResponse(knowledge=knowledge)

    def CreateManual(
        self, request: knowledge_pb2.CreateManualRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CreateManualResponse:
        self.requests.append(request)
        return knowledge_pb2.CreateManualResponse(
            knowledge=knowledge_pb2.Knowledge(id="k-m", title=request.title)
        )


class FakeKnowledgeBases(knowledge_base_pb2_grpc.KnowledgeBaseServiceServicer):
    def __init__(self) -> None:
        self.requests: list[knowledge_base_pb2.CreateKnowledgeBaseRequest] = []

    def CreateKnowledgeBase(
        self,
        request: knowledge_base_pb2.CreateKnowledgeBaseRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.CreateKnowledgeBaseResponse:
        self.requests.append(request)
        kb = knowledge_base_pb2.KnowledgeBase(id="kb-1", name=request.name, config=request.config)
        return knowledge_base_pb2.CreateKnowledgeBaseResponse(knowledge_base=kb)

    def GenerateKnowledgeBaseProfile(
        self,
        request: knowledge_base_pb2.GenerateKnowledgeBaseProfileRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.GenerateKnowledgeBaseProfileResponse:
        if request.knowledge_base_id != "kb-1":
            context.abort(grpc.StatusCode.NOT_FOUND, "knowledge base not found")
        job_id = f"kb-profile-{request.knowledge_base_id}-1-manual"
        return knowledge_base_pb2.GenerateKnowledgeBaseProfileResponse(job_id=job_id)


class FakeSearch(search_pb2_grpc.SearchServiceServicer):
    def __init__(self) -> None:
        self.requests: list[search_pb2.SearchRequest] = []

    def Search(
        self, request: search_pb2.SearchRequest, context: grpc.ServicerContext
    ) -> search_pb2.SearchResponse:
        self.requests.append(request)
        long_text = "Employees get   25 days\nof paid leave. " * 20
        return search_pb2.SearchResponse(
            results=[
                search_pb2.SearchResult(score=0.91, knowledge_title="Handbook", content=long_text),
                search_pb2.SearchResult(score=0.5, knowledge_id="k-2", content="Short."),
            ]
        )


# The generated .pyi marks every RPC abstract; at run time the bases answer UNIMPLEMENTED
# for the RPCs a servicer leaves out.
def fake_knowledge(
    final_status: common_pb2.ParseStatus = common_pb2.PARSE_STATUS_COMPLETED,
    error_message: str = "",
) -> FakeKnowledge:
    return FakeKnowledge(final_status, error_message)  # type: ignore[abstract]


def fake_knowledge_bases() -> FakeKnowledgeBases:
    return FakeKnowledgeBases()  # type: ignore[abstract]


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "handbook.md"
    path.write_text("# Handbook\n\nLeave policy.\n", encoding="utf-8")
    return path


def test_upload_watch_prints_the_knowledge_then_each_span_change(
    serve: Serve, document: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge()
    target = serve(servicer)

    code = main(
        ["--target", target, "upload", "kb-1", str(document), "--watch", "--meta", "team=hr"]
    )

    out = capsys.readouterr().out
    knowledge, end = json.JSONDecoder().raw_decode(out)
    assert code == 0
    assert knowledge["id"] == "k-1"
    assert knowledge["fileName"] == "handbook.md"
    assert knowledge["fileSize"] == str(document.stat().st_size)
    assert knowledge["metadata"] == {"team": "hr"}
    # The snapshot after the reconnect repeats nothing already printed.
    assert out[end:].strip().splitlines() == [
        "docreader    pending",
        "chunking     pending",
        "docreader    running",
        "docreader    done  pages=3",
        "chunking     done  chunks_written=12",
        "status: completed",
    ]
    assert servicer.watches == 2


def test_watch_of_a_failed_knowledge_prints_the_error_and_exits_1(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge(common_pb2.PARSE_STATUS_FAILED, "chunking: no text found")

    code = main(["--target", serve(servicer), "watch", "k-1"])

    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[-2:] == [
        'chunking     failed  chunks_written=12 error="chunking: no text found"',
        'status: failed  error="chunking: no text found"',
    ]


def test_rpc_errors_print_code_message_and_violations_and_exit_5(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--target", serve(fake_knowledge()), "get", "bad id"])

    captured = capsys.readouterr()
    assert code == 5
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "error: INVALID_ARGUMENT: invalid id",
        "  id: must be a UUID",
    ]


def test_an_unreachable_server_is_reported_as_unavailable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    code = main(["--target", f"127.0.0.1:{port}", "get", "k-1"])

    assert code == 3
    err = capsys.readouterr().err
    assert err.startswith(f"error: UNAVAILABLE: the Sluice server at 127.0.0.1:{port} ")
    assert len(err.splitlines()) == 1


def test_a_missing_upload_file_exits_2(
    serve: Serve, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--target", serve(fake_knowledge()), "upload", "kb-1", str(tmp_path / "nope")])
    assert code == 2
    assert "No such file" in capsys.readouterr().err


def test_target_and_api_key_come_from_the_environment(
    serve: Serve, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge()
    monkeypatch.setenv("SLUICE_TARGET", serve(servicer))
    monkeypatch.setenv("SLUICE_API_KEY", "env-key")

    assert main(["get", "k-1"]) == 0

    assert json.loads(capsys.readouterr().out)["parseStatus"] == "PARSE_STATUS_COMPLETED"
    assert servicer.authorizations == ["Bearer env-key"]


def test_kb_create_sends_the_chunking_options(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge_bases()
    target = serve(servicer)

    code = main(["--target", target, "kb", "create", "HR", "--chunk-size", "500"])
    code_overlap = main(["--target", target, "kb", "create", "Ops", "--chunk-overlap", "0"])
    code_plain = main(["--target", target, "kb", "create", "Plain", "--description", "d"])

    assert (code, code_overlap, code_plain) == (0, 0, 0)
    sized, overlapped, plain = servicer.requests
    assert sized.config.chunking.chunk_size == 500
    assert not sized.config.chunking.HasField("chunk_overlap")
    assert overlapped.config.chunking.HasField("chunk_overlap")
    assert not plain.HasField("config") and plain.description == "d"
    assert '"name": "HR"' in capsys.readouterr().out


def test_kb_profile_queues_the_profile_and_prints_its_job(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    target = serve(fake_knowledge_bases())

    assert main(["--target", target, "kb", "profile", "kb-1"]) == 0
    assert capsys.readouterr().out == "queued kb-profile-kb-1-1-manual\n"
    assert main(["--target", target, "kb", "profile", "kb-2"]) == 4
    assert capsys.readouterr().err.startswith("error: NOT_FOUND: ")


def test_json_turns_sentences_into_objects_on_the_command_or_before_it(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    target = serve(fake_knowledge_bases())

    assert main(["--target", target, "kb", "profile", "kb-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"job_id": "kb-profile-kb-1-1-manual"}
    assert main(["--target", target, "--json", "kb", "profile", "kb-1"]) == 0
    assert json.loads(capsys.readouterr().out) == {"job_id": "kb-profile-kb-1-1-manual"}


def test_import_url_sends_the_url_and_its_options_then_watches(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge()
    target = serve(servicer)

    code = main(
        [
            "--target",
            target,
            "import-url",
            "kb-1",
            "https://example.org/get?id=7",
            "--file-type",
            "pdf",
            "--title",
            "Q1 report",
            "--watch",
        ]
    )

    out = capsys.readouterr().out
    knowledge, end = json.JSONDecoder().raw_decode(out)
    assert code == 0
    (request,) = servicer.requests
    assert isinstance(request, knowledge_pb2.CreateFromURLRequest)
    assert (request.knowledge_base_id, request.url, request.file_type, request.title) == (
        "kb-1",
        "https://example.org/get?id=7",
        "pdf",
        "Q1 report",
    )
    assert not request.file_name and not request.HasField("enable_multimodel")
    assert (knowledge["type"], knowledge["source"]) == (
        "KNOWLEDGE_TYPE_URL",
        "https://example.org/get?id=7",
    )
    assert out[end:].strip().splitlines()[-1] == "status: completed"


def test_manual_from_a_file_as_a_draft(
    serve: Serve, document: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge()
    target = serve(servicer)

    code = main(
        ["--target", target, "manual", "kb-1", "Handbook", "--file", str(document), "--draft"]
    )

    assert code == 0
    (request,) = servicer.requests
    assert isinstance(request, knowledge_pb2.CreateManualRequest)
    assert request.content == document.read_text(encoding="utf-8")
    assert request.status == knowledge_pb2.MANUAL_STATUS_DRAFT
    assert json.loads(capsys.readouterr().out)["title"] == "Handbook"


def test_list_filters_by_status_and_prints_one_json_line_each(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = fake_knowledge()

    code = main(
        ["--target", serve(servicer), "list", "kb-1", "--status", "pending", "--status", "failed"]
    )

    assert code == 0
    (request,) = servicer.requests
    assert isinstance(request, knowledge_pb2.ListKnowledgeRequest)
    assert list(request.parse_statuses) == [
        common_pb2.PARSE_STATUS_PENDING,
        common_pb2.PARSE_STATUS_FAILED,
    ]
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["k-1", "k-2"]


def test_search_prints_score_title_and_snippet(
    serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    servicer = FakeSearch()

    code = main(
        [
            "--target",
            serve(servicer),
            "search",
            "kb-1,kb-2",
            "leave",
            "--top-k",
            "2",
            "--mode",
            "hybrid",
        ]
    )

    assert code == 0
    (request,) = servicer.requests
    assert list(request.knowledge_base_ids) == ["kb-1", "kb-2"]
    assert (request.query, request.top_k) == ("leave", 2)
    assert request.mode == search_pb2.SEARCH_MODE_HYBRID
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("0.9100  Handbook  Employees get 25 days of paid leave. Employees")
    assert first.endswith("…") and len(first) == len("0.9100  Handbook  ") + 160
    assert second == "0.5000  k-2  Short."
