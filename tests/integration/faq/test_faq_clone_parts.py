"""A large FAQ clone as a chain of kb:clone_faq tasks over the lite queue, a real database
(both backends) and milvus-lite: with a time budget shorter than one batch, each task runs
one batch and queues the next part, which goes on from the first batch not ended; the chain
ends with the job completed and the target matching the source (removed, added, synced).
The module's other test (test_faq_clone_resume) runs the whole plan in one task under the
default budget."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.payloads import KbCloneFaqPayload
from core.statuses import JobStatus
from storage.db.repositories.clone_jobs import CloneJobRepository, ClonePlan
from storage.db.repositories.faq_entries import NewFaqEntry
from storage.queue.base import TaskSpec
from storage.queue.lite import LiteTaskQueue
from tests.integration.faq.test_faq_clone_resume import content, faq_kb, row_ids
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers.clone.faq_clone import clone_faq, faq_plan
from workers.context import WorkerContext
from workers.faq.entries import create_entries
from workers.settings_groups import OutboundSettings, QueueSettings


class RecordingQueue(LiteTaskQueue):
    """The lite queue, keeping every spec it was given (the parts the chain queued)."""

    def __init__(self) -> None:
        super().__init__()
        self.specs: list[TaskSpec] = []

    def enqueue(self, spec: TaskSpec) -> str:
        self.specs.append(spec)
        return super().enqueue(spec)


@pytest.fixture
def budget_ctx(database_url: str, tmp_path: Path) -> Iterator[WorkerContext]:
    """Tasks run in this process; every FAQ clone task's budget is spent by its first batch."""
    settings = local_settings(
        database_url,
        tmp_path,
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
        queue=QueueSettings(kb_clone_faq_budget_s=0.001),
    )
    with worker_context(settings, queue=RecordingQueue(), install=True) as context:
        yield context


def test_a_spent_budget_hands_the_batches_left_to_the_next_part(
    budget_ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    ctx = budget_ctx
    queue = ctx.queue
    assert isinstance(queue, RecordingQueue)
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    source = faq_kb(ctx, embeddings, tenant)
    target = faq_kb(ctx, embeddings, tenant)
    # Source: entries 0-249, 0-39 disabled; target: 0-99 enabled (synced) and 1000-1099
    # (removed); 100-249 are added.
    create_entries(ctx, source, [NewFaqEntry(content(n), n >= 40) for n in range(250)])
    kept, stale = range(100), range(1000, 1100)
    create_entries(ctx, target, [NewFaqEntry(content(n)) for n in (*kept, *stale)])
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(tenant, source.id, target.id)
    started = jobs.start(job.id, ClonePlan([], [], faq_plan(ctx, job)), 0)
    assert started is not None and started.total == 100 + 150 + 100
    asked = len(embeddings.log())

    clone_faq(ctx, KbCloneFaqPayload(job.id))  # part 0, as the plan queues it
    first = jobs.get(job.id, None)
    assert first is not None and first.done == 100, "part 0 ran one batch, then handed off"
    assert queue.join(timeout=300)

    parts = [spec.payload for spec in queue.specs]
    assert parts == [{"job_id": job.id, "part": n} for n in (1, 2, 3)]
    assert [spec.job_id for spec in queue.specs] == [
        f"kb-clone-{job.id}-faq-{n}" for n in (1, 2, 3)
    ]
    done = jobs.get(job.id, None)
    assert done is not None and done.status == JobStatus.COMPLETED, done and done.error_message
    assert (done.done, done.removed, done.added, done.failed) == (350, 100, 150, 0)
    assert jobs.ended_items(job.id) == {"faq-remove:0", "faq-add:0", "faq-add:1", "faq-sync:0"}
    entries, total = ctx.faq_entries.page(target.id, limit=1000)
    sources, _ = ctx.faq_entries.page(source.id, limit=1000)
    assert total == 250
    assert {e.content_hash for e in entries} == {e.content_hash for e in sources}
    disabled = {e.content_hash for e in sources if not e.is_enabled}
    assert len(disabled) == 40
    assert {e.content_hash for e in entries if not e.is_enabled} == disabled
    assert len(row_ids(ctx, target)) == 2 * 250  # each entry's row and its similar question's
    assert len(embeddings.log()) == asked, "the clone embeds nothing"
