"""The kb:clone_faq task over a real database (both backends) and milvus-lite, resumed after a
try that was killed midway: the state such a try leaves (part of an add batch's entries
written into the target, their index rows not yet copied) is finished by the next try,
every entry written once with all its rows (separate mode: ``{chunk}-{i}`` rows too), and a
duplicate delivery once the job ended changes nothing. Nothing is embedded by the clone. The
last try's failure fails the items it left, naming them."""

from __future__ import annotations

import uuid
from collections import Counter

from core.faq_entry import FaqEntryContent, FaqQuestionIndexMode, clean_entry, faq_index_modes
from core.payloads import KbCloneFaqPayload
from core.statuses import JobStatus, KnowledgeBaseType
from storage.db.models import KnowledgeBase
from storage.db.repositories.clone_jobs import CloneJobRepository, ClonePlan
from storage.db.repositories.faq_entries import NewFaqEntry
from tests.support.openai_embeddings import EmbeddingServer
from workers.clone.faq_clone import clone_faq, clone_faq_failed, faq_plan
from workers.context import WorkerContext
from workers.faq.entries import create_entries

ENTRIES = 150
SEPARATE = {"faq": {"question_index_mode": "FAQ_QUESTION_INDEX_MODE_SEPARATE"}}


def faq_kb(ctx: WorkerContext, embeddings: EmbeddingServer, tenant_id: str) -> KnowledgeBase:
    return ctx.knowledge_bases.create(
        tenant_id,
        f"faq-{uuid.uuid4().hex[:6]}",
        type=KnowledgeBaseType.FAQ,
        config={"embedding": embeddings.kb_config(), **SEPARATE},
        embedding_model_key=embeddings.model_key,
    )


def content(n: int) -> FaqEntryContent:
    return clean_entry(f"Question {n}?", similar_questions=[f"Asked {n}"], answers=[f"Answer {n}."])


def row_ids(ctx: WorkerContext, kb: KnowledgeBase) -> list[str]:
    knowledge = ctx.faq_entries.faq_knowledge(kb.id)
    assert knowledge is not None
    return sorted(ctx.index.ids_for_knowledge(kb.embedding_model_key, knowledge.id))


def test_a_killed_try_is_finished_by_the_next_with_every_entry_once(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    source = faq_kb(ctx, embeddings, tenant)
    target = faq_kb(ctx, embeddings, tenant)
    assert faq_index_modes(source.config or {}).questions == FaqQuestionIndexMode.SEPARATE
    create_entries(ctx, source, [NewFaqEntry(content(n)) for n in range(ENTRIES)])
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(tenant, source.id, target.id)
    started = jobs.start(job.id, ClonePlan([], [], faq_plan(ctx, job)), 0)
    assert started is not None and started.total == ENTRIES

    # A try killed in the first add batch: 30 entries written, their rows not copied.
    knowledge = ctx.faq_entries.ensure_faq_knowledge(tenant, target.id)
    ctx.faq_entries.insert(knowledge, [NewFaqEntry(content(n)) for n in range(30)])
    asked = len(embeddings.log())

    clone_faq(ctx, KbCloneFaqPayload(job.id))  # the retry
    done = jobs.get(job.id, None)
    assert done is not None and done.status == JobStatus.COMPLETED, done and done.error_message
    assert (done.total, done.done, done.added, done.failed) == (ENTRIES, ENTRIES, ENTRIES, 0)
    entries, total = ctx.faq_entries.page(target.id, limit=1000)
    assert total == ENTRIES
    assert max(Counter(e.content_hash for e in entries).values()) == 1
    # Each entry's own row and its similar question's row.
    expected = sorted([e.id for e in entries] + [f"{e.id}-1" for e in entries])
    assert row_ids(ctx, target) == expected
    assert len(row_ids(ctx, source)) == len(expected)
    assert len(embeddings.log()) == asked, "the clone embeds nothing"

    # A duplicate delivery of the task once the job ended changes nothing.
    clone_faq(ctx, KbCloneFaqPayload(job.id))
    assert ctx.faq_entries.page(target.id, limit=1)[1] == ENTRIES
    assert row_ids(ctx, target) == expected


def test_the_last_tries_failure_fails_the_items_it_left_naming_them(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    source = faq_kb(ctx, embeddings, tenant)
    target = faq_kb(ctx, embeddings, tenant)
    create_entries(ctx, source, [NewFaqEntry(content(n)) for n in range(3)])
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(tenant, source.id, target.id)
    jobs.start(job.id, ClonePlan([], [], faq_plan(ctx, job)), 0)
    clone_faq_failed(ctx, KbCloneFaqPayload(job.id), "JobTimeoutException: over 900 s")
    failed = jobs.get(job.id, None)
    assert failed is not None and failed.status == JobStatus.FAILED
    assert (failed.total, failed.done, failed.failed, failed.added) == (3, 3, 3, 0)
    assert failed.error_message == (
        "1 item(s) failed: FAQ entries faq-add:0 (3): JobTimeoutException: over 900 s"
    )
