"""Knowledge base calls: create, get, list (paged), update (field mask), delete; the API key."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from sluice.v1 import knowledge_base_pb2, knowledge_base_pb2_grpc
from sluice_client import NotFound, SluiceClient, SluiceRpcError, v1

from .conftest import Serve, page_of


class InMemoryKnowledgeBases(knowledge_base_pb2_grpc.KnowledgeBaseServiceServicer):
    def __init__(self) -> None:
        self.rows: dict[str, knowledge_base_pb2.KnowledgeBase] = {}
        self.authorizations: list[str] = []
        self.list_requests: list[knowledge_base_pb2.ListKnowledgeBasesRequest] = []
        self.update_masks: list[list[str]] = []

    def _authorize(self, context: grpc.ServicerContext) -> None:
        metadata = dict(context.invocation_metadata())
        if metadata.get("authorization") != "Bearer key-1":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing API key")
        self.authorizations.append(str(metadata["authorization"]))

    def _row(self, kb_id: str, context: grpc.ServicerContext) -> knowledge_base_pb2.KnowledgeBase:
        if kb_id not in self.rows:
            context.abort(grpc.StatusCode.NOT_FOUND, f"knowledge base {kb_id} not found")
        return self.rows[kb_id]

    def CreateKnowledgeBase(
        self,
        request: knowledge_base_pb2.CreateKnowledgeBaseRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.CreateKnowledgeBaseResponse:
        self._authorize(context)
        kb = knowledge_base_pb2.KnowledgeBase(
            id=f"kb-{len(self.rows) + 1}",
            name=request.name,
            description=request.description,
            config=request.config,
        )
        self.rows[kb.id] = kb
        return knowledge_base_pb2.CreateKnowledgeBaseResponse(knowledge_base=kb)

    def GetKnowledgeBase(
        self, request: knowledge_base_pb2.GetKnowledgeBaseRequest, context: grpc.ServicerContext
    ) -> knowledge_base_pb2.GetKnowledgeBaseResponse:
        self._authorize(context)
        return knowledge_base_pb2.GetKnowledgeBaseResponse(
            knowledge_base=self._row(request.id, context)
        )

    def ListKnowledgeBases(
        self,
        request: knowledge_base_pb2.ListKnowledgeBasesRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.ListKnowledgeBasesResponse:
        self._authorize(context)
        self.list_requests.append(request)
        rows = list(self.rows.values())
        offsets, next_token = page_of(request.page_token, request.page_size, len(rows))
        return knowledge_base_pb2.ListKnowledgeBasesResponse(
            knowledge_bases=[rows[i] for i in offsets], next_page_token=next_token
        )

    def UpdateKnowledgeBase(
        self,
        request: knowledge_base_pb2.UpdateKnowledgeBaseRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.UpdateKnowledgeBaseResponse:
        self._authorize(context)
        kb = self._row(request.id, context)
        self.update_masks.append(list(request.update_mask.paths))
        for path in request.update_mask.paths:
            if path == "config":
                kb.config.CopyFrom(request.config)
            else:
                setattr(kb, path, getattr(request, path))
        return knowledge_base_pb2.UpdateKnowledgeBaseResponse(knowledge_base=kb)

    def DeleteKnowledgeBase(
        self,
        request: knowledge_base_pb2.DeleteKnowledgeBaseRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.DeleteKnowledgeBaseResponse:
        self._authorize(context)
        del self.rows[self._row(request.id, context).id]
        return knowledge_base_pb2.DeleteKnowledgeBaseResponse()


@pytest.fixture
def knowledge_bases() -> InMemoryKnowledgeBases:
    # The generated .pyi marks every RPC abstract; the run-time base answers UNIMPLEMENTED.
    return InMemoryKnowledgeBases()  # type: ignore[abstract]


@pytest.fixture
def target(serve: Serve, knowledge_bases: InMemoryKnowledgeBases) -> str:
    return serve(knowledge_bases)


@pytest.fixture
def client(target: str) -> Iterator[SluiceClient]:
    with SluiceClient(target, api_key="key-1") as client:
        yield client


def test_knowledge_base_lifecycle(
    client: SluiceClient, knowledge_bases: InMemoryKnowledgeBases
) -> None:
    config = v1.KnowledgeBaseConfig(chunking=v1.ChunkingConfig(chunk_size=512, chunk_overlap=0))
    created = client.create_knowledge_base("Handbook", description="HR", config=config)
    assert (created.id, created.name, created.description) == ("kb-1", "Handbook", "HR")
    assert created.config is not None and created.config.chunking is not None
    assert created.config.chunking.chunk_size == 512
    assert created.config.chunking.chunk_overlap == 0  # sent, although it is the zero value

    renamed = client.update_knowledge_base(created.id, name="Staff handbook")
    assert renamed.name == "Staff handbook"
    assert renamed.description == "HR"
    assert knowledge_bases.update_masks == [["name"]]
    assert client.get_knowledge_base(created.id).name == "Staff handbook"

    client.delete_knowledge_base(created.id)
    with pytest.raises(NotFound, match="kb-1"):
        client.get_knowledge_base(created.id)
    assert knowledge_bases.authorizations == ["Bearer key-1"] * 5


def test_update_knowledge_base_needs_something_to_change(client: SluiceClient) -> None:
    with pytest.raises(ValueError, match="nothing to update"):
        client.update_knowledge_base("kb-1")


def test_list_knowledge_bases_follows_page_tokens(
    client: SluiceClient, knowledge_bases: InMemoryKnowledgeBases
) -> None:
    for name in "abcde":
        client.create_knowledge_base(name)

    names = [kb.name for kb in client.list_knowledge_bases(page_size=2)]

    assert names == list("abcde")
    assert [r.page_token for r in knowledge_bases.list_requests] == ["", "2", "4"]
    assert {r.page_size for r in knowledge_bases.list_requests} == {2}


def test_a_call_without_the_api_key_is_unauthenticated(target: str) -> None:
    with SluiceClient(target) as client, pytest.raises(SluiceRpcError) as raised:
        client.get_knowledge_base("kb-1")
    assert raised.value.code == grpc.StatusCode.UNAUTHENTICATED
