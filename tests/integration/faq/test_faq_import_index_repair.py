"""A worker killed between an FAQ import batch's database insert and its index write: the
entries are stored, their index rows are not, and the job still holds the batch's pending
writes. The retry writes those entries' index rows (by row id) before going on, so every
entry is indexed once and search finds it."""

from __future__ import annotations

import pytest

from core.faq_entry import AnswerStrategy, FaqEntryContent, clean_entry, faq_index_modes
from core.faq_import_rows import ImportRow
from core.statuses import JobStatus
from storage.db.repositories.faq_entries import NewFaqEntry
from tests.integration.faq.test_faq_import_runner import faq_kb, job_row, started
from tests.support.openai_embeddings import EmbeddingServer, vector
from workers.context import WorkerContext
from workers.embedding.base import EmbeddingError
from workers.faq.entries import create_entries
from workers.faq.index_rows import row_texts
from workers.faq_import.entry_store import LayerEntryStore
from workers.faq_import.runner import BATCH_ROWS, new_entry_id, run_import

ROWS = BATCH_ROWS + 20


def test_the_retry_indexes_the_entries_a_killed_attempt_stored_unindexed(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings)
    job, payload = started(ctx, kb, ROWS)
    # The first attempt counts its first batch and plans its writes, then stops.
    embeddings.fail = lambda n: 400
    try:
        with pytest.raises(EmbeddingError):
            run_import(ctx, payload, LayerEntryStore(ctx, kb))
    finally:
        embeddings.fail = lambda n: None
    pending = job_row(ctx, job.id).pending_writes
    assert pending is not None and len(pending) == BATCH_ROWS
    # What the kill leaves: the batch's entries stored under the ids the write gives them
    # (one transaction, as the layer's insert), their index rows never written.
    knowledge = ctx.faq_entries.ensure_faq_knowledge(kb.tenant_id, kb.id)
    ctx.faq_entries.insert(
        knowledge,
        [
            NewFaqEntry(
                id=new_entry_id(job.id, write["key"]),
                content=clean_entry(
                    write["entry"]["standard_question"],
                    write["entry"]["similar_questions"],
                    write["entry"]["negative_questions"],
                    write["entry"]["answers"],
                    AnswerStrategy.ALL,
                    None,
                ),
            )
            for write in pending
        ],
    )
    killed = job_row(ctx, job.id)
    assert (killed.status, killed.processed) == (JobStatus.PROCESSING, BATCH_ROWS)
    assert killed.pending_writes == pending  # the batch's writes not recorded as done
    assert len(ctx.faq_entries.ids(kb.id)) == BATCH_ROWS
    assert ctx.index.ids_for_knowledge(kb.embedding_model_key, knowledge.id) == []

    run_import(ctx, payload, LayerEntryStore(ctx, kb))  # the retry

    done = job_row(ctx, job.id)
    assert done.status == JobStatus.COMPLETED and done.pending_writes is None
    assert (done.processed, done.succeeded) == (ROWS, ROWS)
    entries, total = ctx.faq_entries.page(kb.id, limit=2 * ROWS)
    assert total == ROWS
    ids = sorted(e.id for e in entries)
    model_key = kb.embedding_model_key
    # Combined mode: one row per entry, each entry's once.
    assert ctx.index.ids_for_knowledge(model_key, knowledge.id) == ids
    assert ctx.index.count(model_key, knowledge.id) == ROWS
    modes = faq_index_modes(kb.config or {})
    for entry in entries[:: BATCH_ROWS // 10]:
        (text,) = row_texts(entry.id, FaqEntryContent.from_metadata(entry.meta), modes)
        hits = ctx.index.search_dense(
            model_key, vector(text.text), tenant_ids=[kb.tenant_id], knowledge_base_ids=[kb.id]
        )
        assert hits and hits[0].chunk_id == entry.id


def test_the_retry_indexes_a_merge_a_killed_attempt_stored_unindexed(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    kb = faq_kb(ctx, embeddings)
    (existing,) = create_entries(ctx, kb, [NewFaqEntry(clean_entry("Question 0?", answers=["A"]))])
    # The import's first row merges into the entry (a similar question added): an update;
    # the rest (enough to be staged in a file) are creates.
    rows = [ImportRow(2, "Question 0?", similar_questions=["Asked 0"], answers=["A"])]
    job, payload = started(ctx, kb, 300, rows)
    embeddings.fail = lambda n: 400
    try:
        with pytest.raises(EmbeddingError):
            run_import(ctx, payload, LayerEntryStore(ctx, kb))
    finally:
        embeddings.fail = lambda n: None
    pending = job_row(ctx, job.id).pending_writes or []
    assert existing.id in {write["key"] for write in pending}
    merged = clean_entry("Question 0?", similar_questions=["Asked 0"], answers=["A"])
    # The kill: the entry's new content stored, its index row still the old text's.
    ctx.faq_entries.replace_content(existing.id, merged)

    run_import(ctx, payload, LayerEntryStore(ctx, kb))  # the retry

    assert job_row(ctx, job.id).status == JobStatus.COMPLETED
    (text,) = row_texts(existing.id, merged, faq_index_modes(kb.config or {}))
    model_key = kb.embedding_model_key
    hits = ctx.index.search_dense(
        model_key, vector(text.text), tenant_ids=[kb.tenant_id], knowledge_base_ids=[kb.id]
    )
    assert (hits[0].id, hits[0].content) == (existing.id, text.text)
    assert ctx.index.ids_for_chunks(model_key, [existing.id]) == [existing.id]
