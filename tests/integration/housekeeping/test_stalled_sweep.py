"""Sweep A on a real database and the real RQ queue: which in-flight rows it leaves alone,
how it fails the rest (message, spans, counters) and how it re-enqueues them."""

from __future__ import annotations

import re

from redis import Redis

from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.queue.rq_queue import RQTaskQueue
from tests.integration.housekeeping.conftest import (
    MODEL_KEY,
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
    enqueue_process,
    open_round,
    spans_by_name,
    write_products,
)
from tests.support.databases import REDIS_URL
from tests.support.processes import free_port
from workers.context import WorkerContext
from workers.housekeeping.rounds import run_round
from workers.housekeeping.wording import iso_z
from workers.pipeline.round.spans import STAGES

QUIET_S = STALE_AFTER_S + 600  # well past the threshold
THRESHOLD = "1m0s"  # go_duration(STALE_AFTER_S)


def _no_requeues(ctx: WorkerContext) -> None:
    housekeeping = ctx.settings.housekeeping.model_copy(update={"max_auto_requeues": 0})
    ctx.settings = ctx.settings.model_copy(update={"housekeeping": housekeeping})


def test_a_recent_heartbeat_keeps_a_quiet_row(ctx: WorkerContext, scope: Scope) -> None:
    row = add_knowledge(ctx, scope, parse_status="processing")
    open_round(ctx, row, 1, running="embedding")
    backdate(ctx, row.id, QUIET_S)
    # The worker is still embedding: one progress write is a fresh heartbeat.
    ctx.spans.upsert(row.id, 1, "embedding", output={"chunks_embedded": 32})

    report = run_round(ctx)

    assert report.stalled["alive"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    assert (fresh.parse_status, fresh.attempt) == ("processing", 1)


def test_a_queued_task_keeps_a_quiet_row(ctx: WorkerContext, scope: Scope) -> None:
    row = add_knowledge(ctx, scope, parse_status="pending")
    enqueue_process(ctx, row, 1)
    backdate(ctx, row.id, QUIET_S)

    report = run_round(ctx)

    assert report.stalled["queued"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    assert (fresh.parse_status, fresh.attempt) == ("pending", 1)


def test_a_failed_queue_probe_skips_the_row_this_round(ctx: WorkerContext, scope: Scope) -> None:
    row = add_knowledge(ctx, scope, parse_status="processing")
    open_round(ctx, row, 1, running="docreader")
    backdate(ctx, row.id, QUIET_S)
    _no_requeues(ctx)
    ctx.queue.close()
    ctx.queue = RQTaskQueue(f"redis://127.0.0.1:{free_port()}/0", key_prefix="nowhere")

    report = run_round(ctx)

    assert report.stalled["skipped"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None and fresh.parse_status == "processing"


def test_a_young_row_is_not_even_a_candidate(ctx: WorkerContext, scope: Scope) -> None:
    row = add_knowledge(ctx, scope, parse_status="pending")
    _no_requeues(ctx)

    report = run_round(ctx)

    assert sum(report.stalled.values()) == 0
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None and fresh.parse_status == "pending"


def test_a_stalled_stage_fails_the_row_with_the_specs_message(
    ctx: WorkerContext, scope: Scope
) -> None:
    _no_requeues(ctx)
    row = add_knowledge(
        ctx,
        scope,
        parse_status="processing",
        summary_status="pending",
        pending_subtasks_count=3,
    )
    open_round(ctx, row, 1, running="docreader")
    write_products(ctx, row, 1, 3)
    last = backdate(ctx, row.id, QUIET_S)

    report = run_round(ctx)

    assert report.stalled["failed"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    assert fresh.parse_status == "failed"
    assert fresh.pending_subtasks_count == 0
    assert fresh.summary_status == "failed"
    assert fresh.error_message == (
        f"task stuck in processing at docreader stage: no progress since {iso_z(last)} "
        f"(> {THRESHOLD}), recovered by housekeeping"
    )
    spans = spans_by_name(ctx, row.id, 1)
    assert spans["docreader"].status == "failed"
    assert spans["knowledge_processing"].status == "failed"
    assert {spans[s].status for s in STAGES[1:]} == {"cancelled"}
    assert {s.error_code for s in spans.values()} == {"TASK_STALLED"}
    assert spans["docreader"].error_message == fresh.error_message
    assert spans["docreader"].duration_ms > 0
    # The partial round leaves no chunk and no index row behind.
    assert ctx.chunks.list_by_knowledge(row.id, tenant_id=None)[1] == 0
    assert ctx.index.count(MODEL_KEY, row.id) == 0


def test_a_finalizing_row_names_the_innermost_running_step_and_keeps_its_chunks(
    ctx: WorkerContext, scope: Scope
) -> None:
    _no_requeues(ctx)
    row = add_knowledge(
        ctx,
        scope,
        parse_status="finalizing",
        enable_status="enabled",
        pending_subtasks_count=1,
    )
    open_round(ctx, row, 1, running=None)
    for stage in ("multimodal", "postprocess"):
        ctx.spans.upsert(row.id, 1, stage, status="done")
    postprocess = spans_by_name(ctx, row.id, 1)["postprocess"]
    ctx.spans.upsert(
        row.id,
        1,
        "postprocess.summary",
        kind="step",
        stage="postprocess",
        status="running",
        parent_id=postprocess.id,
    )
    write_products(ctx, row, 1, 2)
    backdate(ctx, row.id, QUIET_S)

    run_round(ctx)

    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None and fresh.error_message is not None
    assert fresh.parse_status == "failed"
    assert fresh.error_message.startswith(
        "task stuck in finalizing at postprocess stage (postprocess.summary): no progress since "
    )
    spans = spans_by_name(ctx, row.id, 1)
    assert spans["postprocess.summary"].status == "failed"
    assert spans["postprocess.summary"].error_code == "TASK_STALLED"
    assert spans["postprocess"].status == "done"
    # Indexing had finished: the searchable chunks stay.
    assert ctx.chunks.list_by_knowledge(row.id, tenant_id=None)[1] == 2
    assert ctx.index.count(MODEL_KEY, row.id) == 2


def test_a_row_with_no_span_is_stuck_and_its_message_has_no_stage(
    ctx: WorkerContext, scope: Scope
) -> None:
    _no_requeues(ctx)
    row = add_knowledge(ctx, scope, parse_status="pending")
    last = backdate(ctx, row.id, QUIET_S)

    run_round(ctx)

    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    assert fresh.parse_status == "failed"
    assert fresh.error_message == (
        f"task stuck in pending: no progress since {iso_z(last)} (> {THRESHOLD}), "
        "recovered by housekeeping"
    )


def test_auto_requeue_starts_new_attempts_until_the_budget_is_spent(
    ctx: WorkerContext, scope: Scope
) -> None:
    assert ctx.settings.housekeeping.max_auto_requeues == 2
    row = add_knowledge(ctx, scope, parse_status="processing", summary_status="processing")
    for attempt in (1, 2, 3):
        # A worker took the attempt, wrote some chunks and index rows, then died.
        ctx.queue.cancel_group(row.id)
        if attempt > 1:
            ctx.knowledges.transition(
                row.id, from_statuses=("pending",), to_status="processing", attempt=attempt
            )
        open_round(ctx, row, attempt, running="embedding")
        write_products(ctx, row, attempt, 2)
        backdate(ctx, row.id, QUIET_S)

        report = run_round(ctx)

        fresh = ctx.knowledges.get(row.id, None)
        assert fresh is not None and fresh.error_message is not None
        old_spans = spans_by_name(ctx, row.id, attempt)
        assert old_spans["embedding"].status == "failed"
        assert old_spans["embedding"].error_code == "TASK_STALLED"
        assert ctx.chunks.list_by_knowledge(row.id, tenant_id=None)[1] == 0
        assert ctx.index.count(MODEL_KEY, row.id) == 0
        if attempt < 3:
            assert report.stalled["requeued"] == 1
            assert (fresh.parse_status, fresh.attempt) == ("pending", attempt + 1)
            assert fresh.auto_requeues == attempt
            assert fresh.summary_status == "none"
            assert fresh.error_message.endswith(f"; re-enqueued as attempt {attempt + 1}")
            assert re.match(
                r"task stuck in processing at embedding stage: no progress since "
                r"\S+Z \(> 1m0s\), recovered by housekeeping;",
                fresh.error_message,
            )
            # The new attempt waits in the queue, so a later round leaves it alone.
            assert ctx.queue.is_queued(row.id)
            backdate(ctx, row.id, QUIET_S)
            assert run_round(ctx).stalled["queued"] == 1
        else:
            assert report.stalled["failed"] == 1
            assert (fresh.parse_status, fresh.attempt, fresh.auto_requeues) == ("failed", 3, 2)
            assert "re-enqueued" not in fresh.error_message


def test_a_round_that_never_started_is_requeued_without_using_the_budget(
    ctx: WorkerContext, scope: Scope
) -> None:
    # e.g. its queued task was lost when Redis restarted without persistence.
    row = add_knowledge(ctx, scope, parse_status="pending")
    backdate(ctx, row.id, QUIET_S)

    report = run_round(ctx)

    assert report.stalled["requeued"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None
    assert (fresh.parse_status, fresh.attempt, fresh.auto_requeues) == ("pending", 2, 0)
    assert ctx.queue.is_queued(row.id)


def test_guarded_writes_leave_a_row_that_moved_or_showed_life_alone(
    ctx: WorkerContext, scope: Scope
) -> None:
    repo = HousekeepingRepository(ctx.db)
    row = add_knowledge(ctx, scope, parse_status="processing")
    open_round(ctx, row, 1, running="chunking")
    backdate(ctx, row.id, QUIET_S)
    seen = ctx.knowledges.get(row.id, None)
    assert seen is not None
    cutoff = seen.updated_at
    # A heartbeat after the sweep read the row: it is alive after all.
    ctx.spans.upsert(row.id, 1, "chunking", output={"chunks_planned": 4})
    assert not repo.fail_stalled(seen, active_since=cutoff, message="x")
    assert (
        repo.requeue_stalled(seen, active_since=cutoff, message="x", max_requeues=2, counted=True)
        is None
    )
    # The row moved on (a newer attempt took it) after the read.
    other = add_knowledge(ctx, scope, parse_status="processing")
    backdate(ctx, other.id, QUIET_S)
    seen_other = ctx.knowledges.get(other.id, None)
    assert seen_other is not None
    ctx.knowledges.next_attempt(other.id)
    assert not repo.fail_stalled(seen_other, active_since=None, message="x")
    fresh = ctx.knowledges.get(other.id, None)
    assert fresh is not None and fresh.parse_status == "processing"


def test_a_task_popped_by_a_worker_that_died_before_starting_it_is_not_queued(
    ctx: WorkerContext, scope: Scope, key_prefix: str
) -> None:
    """RQ pops a job off its list before marking it started: a worker killed in between
    leaves the job "queued" in no queue at all. The row must not wait for it forever."""
    row = add_knowledge(ctx, scope, parse_status="pending")
    enqueue_process(ctx, row, 1)
    redis = Redis.from_url(REDIS_URL)
    try:
        assert redis.lpop(f"rq:queue:{key_prefix}:default") is not None
    finally:
        redis.close()
    backdate(ctx, row.id, QUIET_S)

    assert not ctx.queue.is_queued(row.id)
    report = run_round(ctx)

    assert report.stalled["requeued"] == 1
    fresh = ctx.knowledges.get(row.id, None)
    assert fresh is not None and (fresh.parse_status, fresh.attempt) == ("pending", 2)
    assert ctx.queue.is_queued(row.id)


def test_sweeps_read_every_stale_row_a_page_at_a_time(ctx: WorkerContext, scope: Scope) -> None:
    repo = HousekeepingRepository(ctx.db)
    rows = [add_knowledge(ctx, scope, parse_status="pending") for _ in range(5)]
    for n, row in enumerate(rows):
        backdate(ctx, row.id, QUIET_S + n)
    young = add_knowledge(ctx, scope, parse_status="pending")
    cutoff = ctx.knowledges.get(young.id, None).updated_at  # type: ignore[union-attr]

    seen = [row.id for row in repo.stale(("pending",), cutoff, page_size=2)]

    assert seen == [row.id for row in reversed(rows)]
