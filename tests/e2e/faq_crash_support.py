"""The FAQ side of the crash tests: an FAQ knowledge base embedded by the test's model
server, and the check that its index rows are exactly its entries' after a recovery."""

from __future__ import annotations

import grpc
from sluice.v1 import config_pb2, knowledge_base_pb2, knowledge_base_pb2_grpc

from storage.db.engine import Database
from storage.db.models import KnowledgeBase
from storage.index.milvus_index import MilvusIndex
from tests.e2e.faq_import_support import StoredEntry
from tests.e2e.stacks import Stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from workers.faq_import.runner import BATCH_ROWS
from workers.settings import Settings

# The stacks' embedding requests carry this many texts (SLUICE_EMBED_BATCH_SIZE).
EMBED_BATCH = 32
# The import's batch the tests kill in (1-based), and the rows they import: one batch more.
KILLED_BATCH = 2
ROWS = (KILLED_BATCH + 1) * BATCH_ROWS
# The first embedding request of the killed batch (one text an entry, combined mode).
HELD_REQUEST = (KILLED_BATCH - 1) * -(-BATCH_ROWS // EMBED_BATCH) + 1
# Rows counted when the kill comes: the killed batch's too (its writes pending).
COUNTED_AT_KILL = KILLED_BATCH * BATCH_ROWS


def faq_kb(stack: Stack, embeddings: EmbeddingServer) -> str:
    config = config_pb2.KnowledgeBaseConfig(
        embedding=config_pb2.ModelConfig(
            provider="openai",
            model=embeddings.model,
            base_url=embeddings.url("/v1"),
            dimensions=DIMENSION,
        )
    )
    request = knowledge_base_pb2.CreateKnowledgeBaseRequest(
        name="faq-crash", type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ, config=config
    )
    with grpc.insecure_channel(stack.target) as channel:
        kbs = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(channel)
        return str(kbs.CreateKnowledgeBase(request).knowledge_base.id)


def assert_index_rows_are_the_entries(stack: Stack, kb_id: str, entries: list[StoredEntry]) -> None:
    """The FAQ knowledge's index rows are one per entry (they have no similar questions),
    each an entry's: none written twice, none left without its entry."""
    storage = Settings.from_env(env=stack.env).storage
    db = Database.from_url(storage.database_url)
    try:
        with db.session() as session:
            kb = session.get(KnowledgeBase, kb_id)
            assert kb is not None
            model_key = kb.embedding_model_key
    finally:
        db.dispose()
    (knowledge_id,) = {entry.knowledge_id for entry in entries}
    index = MilvusIndex(storage.milvus_uri)
    try:
        rows = index.ids_for_knowledge(model_key, knowledge_id)
        owners = index.chunk_ids_for_knowledge(model_key, knowledge_id)
    finally:
        index.close()
    assert len(rows) == len(entries)
    assert set(owners) == {entry.id for entry in entries}
