"""An FAQ clone's parts take turns (storage.db.repositories.faq_clone_turns), over a real
database (both backends) and milvus-lite: the retry of a part that handed the turn on (its
worker killed after queueing the next part) runs no batch and only makes sure the current
part is queued, under that part's own task id; a retry killed between handing on and
queueing gets the next part queued by its own retry; a run taken over by a retry of its
part can neither run on nor hand on. The queue holds the parts (the test runs each), so the
order of runs is the test's."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.payloads import KbCloneFaqPayload
from core.statuses import JobStatus
from storage.db.repositories.clone_jobs import CloneJobRepository, ClonePlan
from storage.db.repositories.faq_clone_turns import FaqCloneTurns
from storage.db.repositories.faq_entries import NewFaqEntry
from storage.queue.base import TaskSpec
from storage.queue.lite import LiteTaskQueue
from tests.integration.faq.test_faq_clone_resume import content, faq_kb, row_ids
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers.clone.faq_clone import clone_faq, clone_faq_failed, faq_plan
from workers.context import WorkerContext
from workers.faq.entries import create_entries
from workers.settings_groups import OutboundSettings, QueueSettings


class HoldingQueue(LiteTaskQueue):
    """Keeps the specs it is given instead of running them: the test runs the parts."""

    def __init__(self) -> None:
        super().__init__()
        self.specs: list[TaskSpec] = []

    def enqueue(self, spec: TaskSpec) -> str:
        self.specs.append(spec)
        return spec.job_id or ""


@pytest.fixture
def held_ctx(database_url: str, tmp_path: Path) -> Iterator[WorkerContext]:
    """Every FAQ clone task's budget is spent by its first batch; queued parts are held."""
    settings = local_settings(
        database_url,
        tmp_path,
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
        queue=QueueSettings(kb_clone_faq_budget_s=0.001),
    )
    with worker_context(settings, queue=HoldingQueue()) as context:
        yield context


def test_a_part_out_of_turn_runs_no_batch_and_the_chain_ends_once(
    held_ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    ctx = held_ctx
    queue = ctx.queue
    assert isinstance(queue, HoldingQueue)
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    source = faq_kb(ctx, embeddings, tenant)
    target = faq_kb(ctx, embeddings, tenant)
    create_entries(ctx, source, [NewFaqEntry(content(n)) for n in range(300)])
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(tenant, source.id, target.id)
    jobs.start(job.id, ClonePlan([], [], faq_plan(ctx, job)), 0)

    def part(n: int) -> KbCloneFaqPayload:
        return KbCloneFaqPayload(job.id, n)

    def done() -> int:
        current = jobs.get(job.id, None)
        assert current is not None
        return current.done

    clone_faq(ctx, part(0))  # one batch, then the turn and the task go to part 1
    assert (done(), jobs.ended_items(job.id)) == (100, {"faq-add:0"})
    assert [s.payload["part"] for s in queue.specs] == [1]

    # Part 0's worker died before its task was acknowledged: its retry runs no batch (part
    # 1's first batch is the one it would redo) and queues part 1 again, under part 1's id
    # (a no-op for a queue that holds it already).
    clone_faq(ctx, part(0))
    assert (done(), jobs.ended_items(job.id)) == (100, {"faq-add:0"})
    assert [s.job_id for s in queue.specs] == [f"kb-clone-{job.id}-faq-1"] * 2
    # Its last try's failure fails nothing: part 1 has the items.
    clone_faq_failed(ctx, part(0), "JobTimeoutException: over 900 s")
    assert done() == 100

    # Part 1 hands on and is killed before queueing part 2: its retry queues part 2.
    turns = FaqCloneTurns(ctx.db)
    queue.specs.clear()
    clone_faq(ctx, part(1))
    assert (done(), [s.payload["part"] for s in queue.specs]) == (200, [2])
    queue.specs.clear()
    clone_faq(ctx, part(1))
    assert (done(), [s.payload["part"] for s in queue.specs]) == (200, [2])
    assert turns.current_part(job.id) == 2

    clone_faq(ctx, part(2))
    ended = jobs.get(job.id, None)
    assert ended is not None and ended.status == JobStatus.COMPLETED, ended and ended.error_message
    assert (ended.done, ended.added, ended.failed) == (300, 300, 0)
    assert jobs.ended_items(job.id) == {"faq-add:0", "faq-add:1", "faq-add:2"}
    entries, total = ctx.faq_entries.page(target.id, limit=1000)
    assert total == 300 and max(Counter(e.content_hash for e in entries).values()) == 1
    assert len(row_ids(ctx, target)) == 2 * 300


def test_a_run_taken_over_by_a_retry_of_its_part_neither_runs_on_nor_hands_on(
    held_ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    ctx = held_ctx
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    jobs = CloneJobRepository(ctx.db)
    job = jobs.create(tenant, str(uuid.uuid4()), str(uuid.uuid4()))
    turns = FaqCloneTurns(ctx.db)
    assert not turns.claim(job.id, 0, "first"), "a job not processing has no turn to take"
    jobs.start(job.id, ClonePlan(["knowledge"], []), 0)

    assert turns.claim(job.id, 0, "first")
    assert not turns.claim(job.id, 1, "early"), "not part 1's turn yet"
    assert turns.claim(job.id, 0, "retry")  # the retry of part 0 takes the turn over
    assert not turns.holds(job.id, 0, "first")
    assert not turns.hand_on(job.id, 0, "first")
    assert turns.current_part(job.id) == 0
    assert turns.hand_on(job.id, 0, "retry")
    assert turns.current_part(job.id) == 1
    assert not turns.claim(job.id, 0, "late"), "part 0's turn is over"
    assert turns.claim(job.id, 1, "next") and turns.holds(job.id, 1, "next")
