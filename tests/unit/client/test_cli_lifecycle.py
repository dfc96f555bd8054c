"""`sluice reparse`, `sluice cancel` and `sluice batch-delete`, run through main() against a
real loopback server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import grpc
import pytest
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc
from sluice_client.cli import main

from .conftest import Serve


class LifecycleKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """Records the requests; a reparse's new attempt is then watched to completion."""

    def __init__(self) -> None:
        self.requests: list[object] = []

    def Reparse(
        self, request: knowledge_pb2.ReparseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.ReparseResponse:
        self.requests.append(request)
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, attempt=2, parse_status=common_pb2.PARSE_STATUS_PENDING
        )
        return knowledge_pb2.ReparseResponse(knowledge=knowledge)

    def CancelParse(
        self, request: knowledge_pb2.CancelParseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CancelParseResponse:
        self.requests.append(request)
        if request.id == "done":
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                "only a pending, processing or finalizing knowledge can be cancelled",
            )
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, parse_status=common_pb2.PARSE_STATUS_CANCELLED
        )
        return knowledge_pb2.CancelParseResponse(knowledge=knowledge)

    def BatchDeleteKnowledge(
        self, request: knowledge_pb2.BatchDeleteKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.BatchDeleteKnowledgeResponse:
        self.requests.append(request)
        failed = [i for i in request.ids if i.startswith("missing")]
        return knowledge_pb2.BatchDeleteKnowledgeResponse(
            deleted=len(request.ids) - len(failed), failed_ids=failed
        )

    def WatchSpans(
        self, request: knowledge_pb2.WatchSpansRequest, context: grpc.ServicerContext
    ) -> Iterator[knowledge_pb2.WatchSpansResponse]:
        done = knowledge_pb2.Span(attempt=2, name="chunking", status=common_pb2.SPAN_STATUS_DONE)
        yield knowledge_pb2.WatchSpansResponse(
            type=knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT, attempt=2, spans=[done]
        )
        yield knowledge_pb2.WatchSpansResponse(type=knowledge_pb2.WATCH_EVENT_TYPE_END, attempt=2)

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, attempt=2, parse_status=common_pb2.PARSE_STATUS_COMPLETED
        )
        return knowledge_pb2.GetKnowledgeResponse(knowledge=knowledge)


@pytest.fixture
def servicer() -> LifecycleKnowledge:
    # The generated .pyi marks every RPC abstract; the run-time base answers UNIMPLEMENTED.
    return LifecycleKnowledge()  # type: ignore[abstract]


def test_reparse_sends_the_chunking_overrides_and_watches_the_new_attempt(
    serve: Serve, servicer: LifecycleKnowledge, capsys: pytest.CaptureFixture[str]
) -> None:
    target = serve(servicer)

    code = main(
        [
            "--target",
            target,
            "reparse",
            "k-1",
            "--chunk-size",
            "100",
            "--chunk-overlap",
            "0",
            "--watch",
        ]
    )

    out = capsys.readouterr().out
    knowledge, end = json.JSONDecoder().raw_decode(out)
    assert code == 0
    assert (knowledge["id"], knowledge["attempt"]) == ("k-1", 2)
    assert out[end:].strip().splitlines() == ["chunking     done", "status: completed"]
    (request,) = servicer.requests
    assert isinstance(request, knowledge_pb2.ReparseRequest)
    assert request.process_config.chunking.chunk_size == 100
    assert request.process_config.chunking.HasField("chunk_overlap")
    assert request.process_config.chunking.chunk_overlap == 0


def test_reparse_without_options_keeps_the_stored_overrides(
    serve: Serve, servicer: LifecycleKnowledge, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", serve(servicer), "reparse", "k-1"]) == 0

    (request,) = servicer.requests
    assert isinstance(request, knowledge_pb2.ReparseRequest)
    assert not request.HasField("process_config")
    assert json.loads(capsys.readouterr().out)["parseStatus"] == "PARSE_STATUS_PENDING"


def test_cancel_prints_the_cancelled_knowledge(
    serve: Serve, servicer: LifecycleKnowledge, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", serve(servicer), "cancel", "k-1"]) == 0

    assert json.loads(capsys.readouterr().out)["parseStatus"] == "PARSE_STATUS_CANCELLED"


def test_cancel_of_a_finished_knowledge_reports_the_precondition(
    serve: Serve, servicer: LifecycleKnowledge, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--target", serve(servicer), "cancel", "done"]) == 5

    assert capsys.readouterr().err.startswith("error: FAILED_PRECONDITION: only a pending")


def test_batch_delete_prints_the_count_and_each_id_left_and_exits_1(
    serve: Serve, servicer: LifecycleKnowledge, capsys: pytest.CaptureFixture[str]
) -> None:
    target = serve(servicer)

    partial = main(["--target", target, "batch-delete", "k-1", "missing-2", "k-3"])
    partial_out = capsys.readouterr().out
    complete = main(["--target", target, "batch-delete", "k-4"])

    assert (partial, complete) == (1, 0)
    assert partial_out.splitlines() == ["deleted 2", "not deleted missing-2"]
    assert capsys.readouterr().out.splitlines() == ["deleted 1"]
    first, _ = servicer.requests
    assert isinstance(first, knowledge_pb2.BatchDeleteKnowledgeRequest)
    assert list(first.ids) == ["k-1", "missing-2", "k-3"]
