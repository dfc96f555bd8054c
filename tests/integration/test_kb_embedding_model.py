"""The embedding model of knowledge bases through the service: new ones get the
multilingual default on their row, older ones keep MiniLM through later updates."""

from __future__ import annotations

import pytest
from sluice.v1 import config_pb2, knowledge_base_pb2

from core.effective_config import embedding_model_of
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from workers.context import WorkerContext

MINILM_KEY = "local/all-MiniLM-L6-v2/384"


@pytest.fixture
def identity(ctx: WorkerContext) -> Identity:
    return Identity(ctx.tenants.create_tenant("models").id, is_admin=False)


def test_a_new_knowledge_base_gets_the_multilingual_model(
    ctx: WorkerContext, identity: Identity
) -> None:
    created = KnowledgeBaseService(ctx).create(
        identity, knowledge_base_pb2.CreateKnowledgeBaseRequest(name="handbook")
    )
    row = ctx.knowledge_bases.get(None, created.row.id)
    assert row is not None
    assert row.embedding_model_key == "local/universal-sentence-encoder-multilingual-3/512"
    assert row.config["embedding"]["model"] == "universal-sentence-encoder-multilingual-3"


@pytest.mark.parametrize(
    "stored_embedding",
    [
        {"provider": "local", "model": "all-MiniLM-L6-v2", "dimensions": 384},
        {"provider": "local"},  # created with the provider alone
    ],
)
def test_an_older_knowledge_base_keeps_minilm_through_updates(
    ctx: WorkerContext, identity: Identity, stored_embedding: dict[str, object]
) -> None:
    row = ctx.knowledge_bases.create(
        identity.tenant_id,
        "older",
        config={"embedding": stored_embedding, "chunking": {"chunk_size": 512}},
        embedding_model_key=MINILM_KEY,
    )
    service = KnowledgeBaseService(ctx)
    # No mask: name, description and a configuration that leaves the model out.
    service.update(
        identity,
        knowledge_base_pb2.UpdateKnowledgeBaseRequest(
            id=row.id,
            name="renamed",
            config=config_pb2.KnowledgeBaseConfig(
                chunking=config_pb2.ChunkingConfig(chunk_size=300, chunk_overlap=0)
            ),
        ),
    )
    updated = ctx.knowledge_bases.get(None, row.id)
    assert updated is not None and updated.name == "renamed"
    assert updated.config["chunking"]["chunk_size"] == 300
    assert embedding_model_of(updated.config).key == MINILM_KEY == updated.embedding_model_key
