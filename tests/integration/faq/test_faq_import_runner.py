"""The faq:import task over a real database (both backends), milvus-lite and a real
embeddings endpoint: an attempt that fails after counting a batch (the model down while
its entries are written) is resumed by the next one, which writes that batch and goes on,
every row counted once and every entry written once; the last attempt's failure, and rows
whose stored file is gone, fail the job with the reason and free the lock."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence

import pytest

from core.faq_import_rows import ImportRow
from core.payloads import FaqImportPayload
from core.statuses import JobStatus, KnowledgeBaseType
from server.services.faq_imports import FaqImportService
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from storage.db.models import FaqImportJob, KnowledgeBase
from tests.support.openai_embeddings import EmbeddingServer
from workers.context import WorkerContext
from workers.embedding.base import EmbeddingError
from workers.faq_import.entry_store import LayerEntryStore
from workers.faq_import.runner import BATCH_ROWS, import_failed, run_import

ROWS = 2 * BATCH_ROWS + 50


def faq_kb(ctx: WorkerContext, embeddings: EmbeddingServer) -> KnowledgeBase:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    return ctx.knowledge_bases.create(
        tenant,
        f"faq-{uuid.uuid4().hex[:6]}",
        type=KnowledgeBaseType.FAQ,
        config={"embedding": embeddings.kb_config()},
        embedding_model_key=embeddings.model_key,
    )


def started(
    ctx: WorkerContext, kb: KnowledgeBase, count: int, first: Sequence[ImportRow] = ()
) -> tuple[FaqImportJob, FaqImportPayload]:
    """An import of ``count`` numbered rows, ``first`` in place of the first ones."""
    service = FaqImportService(ctx, KnowledgeBaseService(ctx))
    options = service.options(Identity(kb.tenant_id, is_admin=False), kb.id, "append", False)
    rows = [
        ImportRow(row_number=n + 2, standard_question=f"Question {n}?", answers=[f"Answer {n}."])
        for n in range(count)
    ]
    job = service.start(options, [*first, *rows[len(first) :]])
    payload = FaqImportPayload(
        job_id=job.id, tenant_id=kb.tenant_id, knowledge_base_id=kb.id, rows_path=job.source_path
    )
    return job, payload


def job_row(ctx: WorkerContext, job_id: str) -> FaqImportJob:
    with ctx.db.session() as session:
        job = session.get(FaqImportJob, job_id)
        assert job is not None
        return job


def test_an_attempt_that_failed_after_counting_a_batch_is_resumed_exactly(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings)
    job, payload = started(ctx, kb, ROWS)
    assert job.source_path  # more than 200 rows: staged in a file
    embeddings.fail = lambda n: 400  # refused, as a model that will not embed
    try:
        with pytest.raises(EmbeddingError):
            run_import(ctx, payload, LayerEntryStore(ctx, kb))
    finally:
        embeddings.fail = lambda n: None
    crashed = job_row(ctx, job.id)
    assert crashed.status == JobStatus.PROCESSING
    # The first batch counted, its writes planned, none done.
    assert (crashed.processed, crashed.succeeded) == (BATCH_ROWS, BATCH_ROWS)
    assert crashed.pending_writes
    assert ctx.faq_entries.ids(kb.id) == []

    run_import(ctx, payload, LayerEntryStore(ctx, kb))  # the retry
    done = job_row(ctx, job.id)
    assert done.status == JobStatus.COMPLETED and done.pending_writes is None
    assert (done.total, done.processed, done.succeeded, done.failed, done.skipped) == (
        ROWS,
        ROWS,
        ROWS,
        0,
        0,
    )
    entries, total = ctx.faq_entries.page(kb.id, limit=2 * ROWS)
    assert total == ROWS
    assert max(Counter(e.meta["standard_question"] for e in entries).values()) == 1
    knowledge = ctx.faq_entries.faq_knowledge(kb.id)
    assert knowledge is not None
    assert sorted(ctx.index.ids_for_knowledge(kb.embedding_model_key, knowledge.id)) == sorted(
        e.id for e in entries
    )
    # The stored rows went with the job.
    assert not ctx.files.exists(payload.rows_path)
    # A duplicate delivery of the task once it ended changes nothing.
    run_import(ctx, payload, LayerEntryStore(ctx, kb))
    assert ctx.faq_entries.page(kb.id, limit=1)[1] == ROWS


def test_the_last_attempts_failure_fails_the_job_with_the_reason(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings)
    job, payload = started(ctx, kb, ROWS)
    import_failed(ctx, payload, "JobTimeoutException: over 7200 s")
    failed = job_row(ctx, job.id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_message == "the import failed: JobTimeoutException: over 7200 s"
    assert not ctx.files.exists(payload.rows_path)
    # The lock is free: another import starts.
    assert started(ctx, kb, 1)[0].status == JobStatus.PENDING


def test_stored_rows_that_are_gone_fail_the_job_at_once(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings)
    job, payload = started(ctx, kb, ROWS)
    ctx.files.delete(payload.rows_path)
    run_import(ctx, payload, LayerEntryStore(ctx, kb))
    failed = job_row(ctx, job.id)
    assert failed.status == JobStatus.FAILED
    assert (
        failed.error_message is not None
        and "stored rows of the import are gone" in failed.error_message
    )
