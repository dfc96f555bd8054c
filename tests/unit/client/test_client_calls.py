"""Knowledge and search calls: requests as the contract says, answers typed, errors raised."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest
from sluice.v1 import (
    common_pb2,
    knowledge_pb2,
    knowledge_pb2_grpc,
    search_pb2,
    search_pb2_grpc,
)
from sluice_client import NotFound, ProtocolError, SluiceClient, SluiceRpcError, v1

from .conftest import Serve, page_of

# Above grpcio's default 4 MiB receive limit, below the client's 64 MiB.
HUGE_SUMMARY_CHARS = 6 * 1024 * 1024


class RecordingKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """Knowledge RPCs that record their requests and answer from small fixed data."""

    KNOWLEDGE_COUNT = 5
    CHUNK_COUNT = 3

    def __init__(self) -> None:
        self.requests: list[object] = []

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        if request.id == "slow":
            time.sleep(0.5)
        if request.id == "empty-answer":
            return knowledge_pb2.GetKnowledgeResponse()
        if request.id == "huge":
            knowledge = knowledge_pb2.Knowledge(id="huge", summary="x" * HUGE_SUMMARY_CHARS)
            return knowledge_pb2.GetKnowledgeResponse(knowledge=knowledge)
        return knowledge_pb2.GetKnowledgeResponse(knowledge=knowledge_pb2.Knowledge(id=request.id))

    def ListKnowledge(
        self, request: knowledge_pb2.ListKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.ListKnowledgeResponse:
        self.requests.append(request)
        if request.knowledge_base_id == "missing":
            context.abort(grpc.StatusCode.NOT_FOUND, "no such knowledge base")
        offsets, next_token = page_of(request.page_token, request.page_size, self.KNOWLEDGE_COUNT)
        return knowledge_pb2.ListKnowledgeResponse(
            knowledges=[knowledge_pb2.Knowledge(id=f"k-{i}") for i in offsets],
            next_page_token=next_token,
            total=self.KNOWLEDGE_COUNT,
        )

    def ListChunks(
        self, request: knowledge_pb2.ListChunksRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.ListChunksResponse:
        self.requests.append(request)
        offsets, next_token = page_of(request.page_token, request.page_size, self.CHUNK_COUNT)
        chunks = [
            knowledge_pb2.Chunk(id=f"c-{i}", knowledge_id=request.knowledge_id, chunk_index=i)
            for i in offsets
        ]
        return knowledge_pb2.ListChunksResponse(chunks=chunks, next_page_token=next_token)

    def CreateManual(
        self, request: knowledge_pb2.CreateManualRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CreateManualResponse:
        self.requests.append(request)
        status = (
            common_pb2.PARSE_STATUS_DRAFT
            if request.status == knowledge_pb2.MANUAL_STATUS_DRAFT
            else common_pb2.PARSE_STATUS_PENDING
        )
        knowledge = knowledge_pb2.Knowledge(id="k-manual", title=request.title, parse_status=status)
        return knowledge_pb2.CreateManualResponse(knowledge=knowledge)

    def UpdateManual(
        self, request: knowledge_pb2.UpdateManualRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.UpdateManualResponse:
        self.requests.append(request)
        return knowledge_pb2.UpdateManualResponse(knowledge=knowledge_pb2.Knowledge(id=request.id))

    def GetSpans(
        self, request: knowledge_pb2.GetSpansRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetSpansResponse:
        return knowledge_pb2.GetSpansResponse(
            knowledge_id=request.knowledge_id,
            attempt=request.attempt or 3,
            spans=[knowledge_pb2.Span(name="docreader", status=common_pb2.SPAN_STATUS_RUNNING)],
            stall_state=common_pb2.STALL_STATE_STALLED,
        )

    def Reparse(
        self, request: knowledge_pb2.ReparseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.ReparseResponse:
        self.requests.append(request)
        return knowledge_pb2.ReparseResponse(
            knowledge=knowledge_pb2.Knowledge(id=request.id, attempt=2)
        )

    def CancelParse(
        self, request: knowledge_pb2.CancelParseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CancelParseResponse:
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, parse_status=common_pb2.PARSE_STATUS_CANCELLED
        )
        return knowledge_pb2.CancelParseResponse(knowledge=knowledge)

    def DeleteKnowledge(
        self, request: knowledge_pb2.DeleteKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.DeleteKnowledgeResponse:
        self.requests.append(request)
        return knowledge_pb2.DeleteKnowledgeResponse()

    def BatchReparse(
        self, request: knowledge_pb2.BatchReparseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.BatchReparseResponse:
        self.requests.append(request)
        accepted = len(request.ids) or 7
        return knowledge_pb2.BatchReparseResponse(job_id="job-1", accepted=accepted)

    def BatchDeleteKnowledge(
        self, request: knowledge_pb2.BatchDeleteKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.BatchDeleteKnowledgeResponse:
        self.requests.append(request)
        return knowledge_pb2.BatchDeleteKnowledgeResponse(
            deleted=len(request.ids) - 1, failed_ids=request.ids[-1:]
        )


class RecordingSearch(search_pb2_grpc.SearchServiceServicer):
    def __init__(self) -> None:
        self.requests: list[search_pb2.SearchRequest] = []

    def Search(
        self, request: search_pb2.SearchRequest, context: grpc.ServicerContext
    ) -> search_pb2.SearchResponse:
        self.requests.append(request)
        return search_pb2.SearchResponse(
            results=[
                search_pb2.SearchResult(chunk_id="c-1", score=0.9, content="first"),
                search_pb2.SearchResult(chunk_id="c-2", score=0.5, content="second"),
            ]
        )


@pytest.fixture
def knowledge() -> RecordingKnowledge:
    # The generated .pyi marks every RPC abstract; the run-time base answers UNIMPLEMENTED.
    return RecordingKnowledge()  # type: ignore[abstract]


@pytest.fixture
def search() -> RecordingSearch:
    return RecordingSearch()


@pytest.fixture
def target(serve: Serve, knowledge: RecordingKnowledge, search: RecordingSearch) -> str:
    return serve(knowledge, search)


@pytest.fixture
def client(target: str) -> Iterator[SluiceClient]:
    with SluiceClient(target) as client:
        yield client


def test_list_knowledge_sends_filters_and_reads_every_page(
    client: SluiceClient, knowledge: RecordingKnowledge
) -> None:
    found = client.list_knowledge(
        "kb-1",
        statuses=[v1.ParseStatus.FAILED, v1.ParseStatus.PENDING],
        keyword="invoice",
        page_size=2,
    )

    assert [k.id for k in found] == ["k-0", "k-1", "k-2", "k-3", "k-4"]
    requests = [r for r in knowledge.requests if isinstance(r, knowledge_pb2.ListKnowledgeRequest)]
    assert len(requests) == 3
    assert all(r.knowledge_base_id == "kb-1" and r.keyword == "invoice" for r in requests)
    assert list(requests[0].parse_statuses) == [
        common_pb2.PARSE_STATUS_FAILED,
        common_pb2.PARSE_STATUS_PENDING,
    ]


def test_an_error_while_paging_is_raised_from_the_iterator(client: SluiceClient) -> None:
    pages = client.list_knowledge("missing")
    with pytest.raises(NotFound, match="no such knowledge base"):
        next(pages)


def test_list_chunks_reads_every_page(client: SluiceClient) -> None:
    chunks = list(client.list_chunks("k-1", page_size=2))
    assert [(c.id, c.chunk_index, c.knowledge_id) for c in chunks] == [
        ("c-0", 0, "k-1"),
        ("c-1", 1, "k-1"),
        ("c-2", 2, "k-1"),
    ]


def test_manual_knowledge_is_published_or_drafted(
    client: SluiceClient, knowledge: RecordingKnowledge
) -> None:
    published = client.create_manual("kb-1", "FAQ", "# FAQ", tag_ids=["t1"])
    draft = client.create_manual("kb-1", "Notes", "draft text", publish=False)
    client.update_manual("k-manual", title="Notes v2")
    client.update_manual("k-manual", publish=True)

    assert published.parse_status == v1.ParseStatus.PENDING
    assert draft.parse_status == v1.ParseStatus.DRAFT
    created, drafted, retitled, publishing = knowledge.requests
    assert isinstance(created, knowledge_pb2.CreateManualRequest)
    assert (created.content, list(created.tag_ids)) == ("# FAQ", ["t1"])
    assert created.status == knowledge_pb2.MANUAL_STATUS_PUBLISH
    assert isinstance(drafted, knowledge_pb2.CreateManualRequest)
    assert drafted.status == knowledge_pb2.MANUAL_STATUS_DRAFT
    assert isinstance(retitled, knowledge_pb2.UpdateManualRequest)
    assert (retitled.title, retitled.status) == (
        "Notes v2",
        knowledge_pb2.MANUAL_STATUS_UNSPECIFIED,
    )
    assert isinstance(publishing, knowledge_pb2.UpdateManualRequest)
    assert publishing.status == knowledge_pb2.MANUAL_STATUS_PUBLISH


def test_knowledge_operations(client: SluiceClient, knowledge: RecordingKnowledge) -> None:
    spans = client.get_spans("k-1")
    assert (spans.knowledge_id, spans.attempt) == ("k-1", 3)
    assert spans.stall_state == v1.StallState.STALLED
    assert [(s.name, s.status) for s in spans.spans] == [("docreader", v1.SpanStatus.RUNNING)]

    config = v1.ProcessConfig(summary_enabled=False)
    assert client.reparse("k-1", process_config=config).attempt == 2
    assert client.cancel_parse("k-1").parse_status == v1.ParseStatus.CANCELLED
    client.delete_knowledge("k-1")

    reparse, delete = knowledge.requests
    assert isinstance(reparse, knowledge_pb2.ReparseRequest)
    assert reparse.process_config.HasField("summary_enabled")
    assert not reparse.process_config.summary_enabled
    assert isinstance(delete, knowledge_pb2.DeleteKnowledgeRequest) and delete.id == "k-1"


def test_batch_operations_send_their_ids_and_return_the_counts(
    client: SluiceClient, knowledge: RecordingKnowledge
) -> None:
    by_ids = client.batch_reparse(["k-1", "k-2"])
    by_kb = client.batch_reparse(knowledge_base_id="kb-1")
    deleted = client.batch_delete_knowledge(["k-1", "k-2", "k-404"])

    assert (by_ids.job_id, by_ids.accepted, by_kb.accepted) == ("job-1", 2, 7)
    assert (deleted.deleted, deleted.failed_ids) == (2, ["k-404"])
    ids_request, kb_request, delete_request = knowledge.requests
    assert isinstance(ids_request, knowledge_pb2.BatchReparseRequest)
    assert (list(ids_request.ids), ids_request.knowledge_base_id) == (["k-1", "k-2"], "")
    assert isinstance(kb_request, knowledge_pb2.BatchReparseRequest)
    assert (list(kb_request.ids), kb_request.knowledge_base_id) == ([], "kb-1")
    assert isinstance(delete_request, knowledge_pb2.BatchDeleteKnowledgeRequest)
    assert list(delete_request.ids) == ["k-1", "k-2", "k-404"]


def test_search_sends_the_query_and_returns_the_hits(
    client: SluiceClient, search: RecordingSearch
) -> None:
    results = client.search("vacation policy", ["kb-1", "kb-2"], top_k=2, mode=v1.SearchMode.HYBRID)
    client.search("vacation", "kb-3")

    assert [(r.chunk_id, r.content) for r in results] == [("c-1", "first"), ("c-2", "second")]
    assert results[0].score == pytest.approx(0.9)
    first, second = search.requests
    assert (first.query, list(first.knowledge_base_ids)) == ("vacation policy", ["kb-1", "kb-2"])
    assert (first.top_k, first.mode) == (2, search_pb2.SEARCH_MODE_HYBRID)
    assert list(second.knowledge_base_ids) == ["kb-3"]
    assert (second.top_k, second.mode) == (10, search_pb2.SEARCH_MODE_UNSPECIFIED)


def test_unary_calls_carry_the_client_timeout_as_deadline(target: str) -> None:
    with SluiceClient(target, timeout=0.1) as client, pytest.raises(SluiceRpcError) as raised:
        client.get_knowledge("slow")
    assert raised.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_responses_above_the_default_4_mib_limit_are_received(client: SluiceClient) -> None:
    assert len(client.get_knowledge("huge").summary) == HUGE_SUMMARY_CHARS


def test_a_response_without_its_message_is_a_protocol_error(client: SluiceClient) -> None:
    with pytest.raises(ProtocolError, match="knowledge"):
        client.get_knowledge("empty-answer")


def test_a_channel_passed_in_is_used_and_left_open(target: str) -> None:
    channel = grpc.insecure_channel(target)
    try:
        with SluiceClient("ignored", channel=channel) as client:
            assert client.get_knowledge("k-7").id == "k-7"
        with SluiceClient("ignored", channel=channel) as client:
            assert client.get_knowledge("k-8").id == "k-8"
    finally:
        channel.close()
