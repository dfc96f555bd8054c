"""An FAQ import whose RQ worker is SIGKILLed mid-import (full mode: API, RQ workers, the
housekeeper, PostgreSQL, Redis, the milvus-lite server) is queued again by housekeeping
once its task's heartbeat lapsed — seconds, not the job's 2 h time limit — and resumes on a
new worker from what it had recorded: every row counted once, every entry written once,
its index rows those of its entries and no others.

The kill comes at a deterministic point: the embedding server holds the embedding request
of the third batch, which the import has counted (its writes pending) but not written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import grpc
import pytest
from sluice.v1 import config_pb2, knowledge_base_pb2, knowledge_base_pb2_grpc

from storage.db.engine import Database
from storage.db.models import KnowledgeBase
from storage.db.repositories.faq_imports import FaqImportRepository
from storage.index.milvus_index import MilvusIndex
from tests.e2e.crash_support import CRASH_ENV, HeldEmbeddings, kill_workers, start_worker
from tests.e2e.faq_import_support import FaqCalls, StoredEntry, csv_file, numbered
from tests.e2e.stacks import Stack, full_stack
from tests.support.openai_embeddings import DIMENSION

ROWS = 500
# 100 rows a batch, 32 texts an embedding request: batch 3's first request is the 9th.
HELD_REQUEST = 9


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {**CRASH_ENV, "SLUICE_EMBED_BATCH_SIZE": "32"}
    with full_stack(tmp_path_factory.mktemp("faq-crash"), workers=1, extra_env=env) as running:
        yield running


def _faq_kb(stack: Stack, embeddings: HeldEmbeddings) -> str:
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


def test_a_killed_import_resumes_without_duplicates(stack: Stack) -> None:
    calls = FaqCalls(stack)
    embeddings = HeldEmbeddings(hold_at=HELD_REQUEST)
    with embeddings:
        try:
            kb = _faq_kb(stack, embeddings)
            job = calls.import_file(kb, "many.csv", csv_file(list(numbered(ROWS)))).job_id
            embeddings.wait_held()
            kill_workers(stack)
            killed_at = calls.progress(job)
            assert killed_at.status == knowledge_base_pb2.JOB_STATUS_PROCESSING
            assert killed_at.processed == 300  # batch 3 counted, its writes pending
            embeddings.release()
            start_worker(stack)

            final = calls.done(job)
            assert final.status == knowledge_base_pb2.JOB_STATUS_COMPLETED, final.error_message
            assert (final.total, final.processed, final.succeeded) == (ROWS, ROWS, ROWS)
            assert (final.failed, final.partially_failed, final.skipped) == (0, 0, 0)
            row = FaqImportRepository(calls.db).get(None, job)
            assert row is not None and row.recoveries == 1
            entries = calls.entries(kb)
            questions = Counter(e.content.standard_question for e in entries)
            assert len(entries) == ROWS and max(questions.values()) == 1
            assert_index_rows_are_the_entries(stack, kb, entries)
        finally:
            embeddings.release()
            calls.close()


def assert_index_rows_are_the_entries(stack: Stack, kb_id: str, entries: list[StoredEntry]) -> None:
    """The FAQ knowledge's index rows are one per entry (they have no similar questions),
    each an entry's: none written twice, none left without its entry."""
    db = Database.from_url(stack.env["SLUICE_DATABASE_URL"])
    try:
        with db.session() as session:
            kb = session.get(KnowledgeBase, kb_id)
            assert kb is not None
            model_key = kb.embedding_model_key
    finally:
        db.dispose()
    (knowledge_id,) = {entry.knowledge_id for entry in entries}
    index = MilvusIndex(stack.env["SLUICE_MILVUS_URI"])
    try:
        rows = index.ids_for_knowledge(model_key, knowledge_id)
        owners = index.chunk_ids_for_knowledge(model_key, knowledge_id)
    finally:
        index.close()
    assert len(rows) == len(entries)
    assert set(owners) == {entry.id for entry in entries}
