"""The post-processing orchestration on real parts (PostgreSQL and SQLite, the lite queue):
a round's postprocess stage adds up the subtasks its kinds plan, moves processing →
finalizing with that count, queues them, counts off at once those the queue refused, and
the subtasks' own ends complete the knowledge and close its spans. The kinds here queue
real tasks (``subtask_handlers.finish``) that end the way every subtask does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from core.effective_config import resolve
from core.statuses import ParseStatus, SpanStatus
from storage.db.models import Knowledge
from storage.queue.base import AttemptInfo, QueueError, QueueName, TaskQueue, TaskSpec
from storage.queue.lite import LiteTaskQueue
from tests.integration.pipeline import subtask_handlers
from tests.support.waiting import wait_until
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext, install_context
from workers.pipeline.document import DocumentRound
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.round.time_limit import TimeBudget
from workers.pipeline.stages.postprocess import PostprocessStage
from workers.pipeline.stages.work import DocumentWork

MODEL_KEY = "local/all-MiniLM-L6-v2/384"


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("postprocess")
    settings = local_settings(database_url, data_dir)
    with worker_context(settings, install=True) as context:
        yield context


@pytest.fixture(autouse=True)
def held_subtasks(ctx: WorkerContext) -> Iterator[None]:
    # The subtasks' handler runs on the current context: this module's, even while another
    # module's context of the other database backend is still alive.
    install_context(ctx)
    subtask_handlers.RELEASE.clear()
    yield
    subtask_handlers.RELEASE.set()


class QueuedKind:
    """``count`` subtasks, each a task on ``queue``; a refused enqueue is not counted."""

    def __init__(self, name: str, count: int, queue: TaskQueue) -> None:
        self.name = name
        self._count = count
        self._queue = queue

    def planned(self, work: DocumentWork) -> int:
        return self._count

    def enqueue(self, work: DocumentWork) -> int:
        queued = 0
        for n in range(self._count):
            spec = TaskSpec(
                handler="tests.integration.pipeline.subtask_handlers.finish",
                payload={"knowledge_id": work.knowledge.id, "attempt": work.attempt},
                queue=QueueName.SUMMARY,
                job_id=f"{self.name}-{work.knowledge.id}-{n}",
                group=work.knowledge.id,
            )
            try:
                self._queue.enqueue(spec)
            except QueueError:
                continue
            queued += 1
        return queued


def _processing_knowledge(ctx: WorkerContext) -> Knowledge:
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config={},
        embedding_model_key=MODEL_KEY,
        storage_backend_id="",
    )
    return ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="file",
        title="notes.md",
        file_name="notes.md",
        file_type="md",
        parse_status="processing",
        enable_status="enabled",
        attempt=1,
    )


def _round(ctx: WorkerContext, row: Knowledge, *kinds: QueuedKind) -> DocumentRound:
    work = DocumentWork(row, 1, resolve({}, None), MODEL_KEY)
    return DocumentRound(
        ctx,
        work,
        KnowledgeState(ctx, row.id, 1),
        AttemptInfo("", None, 1, 1),
        RoundCheckpoint(ctx, row.id, 1),
        TimeBudget(0, 0.0),
        (PostprocessStage(ctx, kinds),),
    )


def _row(ctx: WorkerContext, knowledge_id: str) -> Knowledge:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row


def _wait_completed(ctx: WorkerContext, knowledge_id: str) -> None:
    """Completed, and its root span closed (the last subtask closes it right after)."""
    wait_until(
        lambda: (
            _row(ctx, knowledge_id).parse_status == ParseStatus.COMPLETED
            and _spans(ctx, knowledge_id)["knowledge_processing"].status == SpanStatus.DONE
        ),
        timeout=30,
    )


def _spans(ctx: WorkerContext, knowledge_id: str) -> dict[str, Any]:
    return {s.name: s for s in ctx.spans.list(knowledge_id, 1, tenant_id=None)}


def test_no_planned_subtask_completes_the_round_at_once(ctx: WorkerContext) -> None:
    row = _processing_knowledge(ctx)
    assert _round(ctx, row).execute(DocumentWork(row, 1, resolve({}, None), MODEL_KEY))
    assert _row(ctx, row.id).parse_status == ParseStatus.COMPLETED
    spans = _spans(ctx, row.id)
    assert spans["postprocess"].status == SpanStatus.SKIPPED
    assert spans["postprocess"].output == {
        "reason": "no enrichment subtask is planned for this knowledge"
    }
    assert spans["knowledge_processing"].status == SpanStatus.DONE


def test_the_round_waits_in_finalizing_until_its_last_subtask_ends(ctx: WorkerContext) -> None:
    row = _processing_knowledge(ctx)
    work = DocumentWork(row, 1, resolve({}, None), MODEL_KEY)
    kinds = (QueuedKind("summary", 1, ctx.queue), QueuedKind("questions", 2, ctx.queue))
    assert _round(ctx, row, *kinds).execute(work)

    held = _row(ctx, row.id)
    assert (held.parse_status, held.pending_subtasks_count) == (ParseStatus.FINALIZING, 3)
    spans = _spans(ctx, row.id)
    assert spans["postprocess"].status == SpanStatus.RUNNING
    assert spans["postprocess"].input == {
        "expected_subtasks": 3,
        "summary_subtasks": 1,
        "questions_subtasks": 2,
    }
    assert spans["knowledge_processing"].status == SpanStatus.RUNNING

    subtask_handlers.RELEASE.set()
    _wait_completed(ctx, row.id)
    done = _row(ctx, row.id)
    assert done.pending_subtasks_count == 0 and done.processed_at is not None
    spans = _spans(ctx, row.id)
    assert spans["postprocess"].status == SpanStatus.DONE
    assert spans["postprocess"].output == {"expected_subtasks": 3}
    assert spans["knowledge_processing"].status == SpanStatus.DONE


def test_subtasks_the_queue_refused_are_counted_off_at_once(ctx: WorkerContext) -> None:
    refusing = LiteTaskQueue()
    refusing.close()
    row = _processing_knowledge(ctx)
    work = DocumentWork(row, 1, resolve({}, None), MODEL_KEY)
    kinds = (QueuedKind("summary", 1, ctx.queue), QueuedKind("questions", 2, refusing))
    assert _round(ctx, row, *kinds).execute(work)

    held = _row(ctx, row.id)
    assert (held.parse_status, held.pending_subtasks_count) == (ParseStatus.FINALIZING, 1)
    subtask_handlers.RELEASE.set()
    _wait_completed(ctx, row.id)
    assert _spans(ctx, row.id)["knowledge_processing"].status == SpanStatus.DONE


def test_a_round_whose_subtasks_were_all_refused_completes_in_its_own_task(
    ctx: WorkerContext,
) -> None:
    refusing = LiteTaskQueue()
    refusing.close()
    row = _processing_knowledge(ctx)
    work = DocumentWork(row, 1, resolve({}, None), MODEL_KEY)
    assert _round(ctx, row, QueuedKind("questions", 2, refusing)).execute(work)
    done = _row(ctx, row.id)
    assert (done.parse_status, done.pending_subtasks_count) == (ParseStatus.COMPLETED, 0)
    spans = _spans(ctx, row.id)
    assert spans["postprocess"].status == SpanStatus.DONE
    assert spans["postprocess"].output == {"expected_subtasks": 2, "queued_subtasks": 0}
    assert spans["knowledge_processing"].status == SpanStatus.DONE


def test_a_subtask_of_an_older_round_counts_nothing_down(ctx: WorkerContext) -> None:
    row = _processing_knowledge(ctx)
    work = DocumentWork(row, 1, resolve({}, None), MODEL_KEY)
    assert _round(ctx, row, QueuedKind("summary", 1, ctx.queue)).execute(work)
    assert ctx.knowledges.begin_attempt(row.id, after_attempt=1) == 2  # reparsed meanwhile
    subtask_handlers.RELEASE.set()
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=30)
    after = _row(ctx, row.id)
    assert (after.attempt, after.parse_status) == (2, ParseStatus.PENDING)
