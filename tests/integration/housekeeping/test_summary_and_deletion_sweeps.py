"""Sweeps B (summaries that never finish) and C (deletions that stopped half-way), and the
round lock that lets one housekeeper at a time run a round."""

from __future__ import annotations

import uuid

from storage.db.engine import Database
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.resources import StorageResourceRepository
from storage.files.resource_catalog import ResourceCatalog
from storage.queue.base import QueueName, TaskSpec
from tests.integration.housekeeping.conftest import (
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
)
from tests.support.databases import REDIS_URL
from workers.context import WorkerContext
from workers.housekeeping.lock import RedisRoundLock
from workers.housekeeping.rounds import run_round
from workers.housekeeping.runner import Housekeeper
from workers.housekeeping.wording import iso_z

QUIET_S = STALE_AFTER_S + 600


def _queue_task_of(ctx: WorkerContext, knowledge_id: str, queue: QueueName) -> None:
    """A task of the knowledge waiting in the queue (no worker listens in these tests)."""
    ctx.queue.enqueue(
        TaskSpec(
            handler="workers.tasks.process_document",
            payload={"knowledge_id": knowledge_id},
            queue=queue,
            job_id=f"waiting-{knowledge_id}",
            group=knowledge_id,
        )
    )


def _status(ctx: WorkerContext, knowledge_id: str) -> tuple[str, str]:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row.parse_status, row.summary_status


def test_b_a_summary_processing_too_long_fails(ctx: WorkerContext, scope: Scope) -> None:
    stuck = add_knowledge(ctx, scope, parse_status="completed", summary_status="processing")
    backdate(ctx, stuck.id, QUIET_S)
    young = add_knowledge(ctx, scope, parse_status="completed", summary_status="processing")

    report = run_round(ctx)

    assert report.summaries["failed"] == 1
    assert _status(ctx, stuck.id) == ("completed", "failed")
    assert _status(ctx, young.id) == ("completed", "processing")


def test_b_a_stuck_refresh_fails_keeping_the_summary_written_last(
    ctx: WorkerContext, scope: Scope
) -> None:
    # A completed knowledge whose refresh (after an edit) was taken and never ended.
    stuck = add_knowledge(
        ctx,
        scope,
        parse_status="completed",
        summary_status="processing",
        summary="The summary before the edit.",
        summary_stale=True,
    )
    since = backdate(ctx, stuck.id, QUIET_S)

    assert run_round(ctx).summaries["failed"] == 1
    row = ctx.knowledges.get(stuck.id, None)
    assert row is not None
    assert (row.summary_status, row.summary, row.summary_stale) == (
        "failed",
        "The summary before the edit.",
        True,
    )
    assert row.summary_error == (
        f"summary stuck processing since {iso_z(since)}, recovered by housekeeping"
    )


def test_b_a_pending_summary_after_the_parse_fails_unless_its_task_waits(
    ctx: WorkerContext, scope: Scope
) -> None:
    given_up = add_knowledge(ctx, scope, parse_status="failed", summary_status="pending")
    waiting = add_knowledge(ctx, scope, parse_status="completed", summary_status="pending")
    _queue_task_of(ctx, waiting.id, QueueName.SUMMARY)
    # Parse not over: the summary is pending because the document is, not stuck.
    parsing = add_knowledge(
        ctx, scope, parse_status="finalizing", summary_status="pending", attempt=1
    )
    ctx.spans.upsert(parsing.id, 1, "knowledge_processing", kind="root", status="running")
    for row in (given_up, waiting, parsing):
        backdate(ctx, row.id, QUIET_S)
    ctx.spans.upsert(parsing.id, 1, "knowledge_processing", output={"beat": 1})

    report = run_round(ctx)

    assert report.summaries["failed"] == 1
    assert report.summaries["queued"] == 1
    assert _status(ctx, given_up.id) == ("failed", "failed")
    assert _status(ctx, waiting.id) == ("completed", "pending")
    assert _status(ctx, parsing.id) == ("finalizing", "pending")


def test_c_a_stuck_deletion_fails_with_its_reason_and_can_be_deleted_again(
    ctx: WorkerContext, scope: Scope
) -> None:
    stuck = add_knowledge(ctx, scope, parse_status="deleting")
    marked = backdate(ctx, stuck.id, QUIET_S)
    queued = add_knowledge(ctx, scope, parse_status="deleting")
    _queue_task_of(ctx, queued.id, QueueName.LOW)
    backdate(ctx, queued.id, QUIET_S)
    recent = add_knowledge(ctx, scope, parse_status="deleting")

    report = run_round(ctx)

    assert report.deletions["failed"] == 1
    assert report.deletions["queued"] == 1
    row = ctx.knowledges.get(stuck.id, None)
    assert row is not None
    assert row.parse_status == "failed"
    assert row.error_message == (
        f"deletion stuck: no progress since {iso_z(marked)} (> 1m0s), recovered by "
        "housekeeping; delete it again"
    )
    assert _status(ctx, queued.id)[0] == "deleting"
    assert _status(ctx, recent.id)[0] == "deleting"
    # Failed rows are listed again (deleting ones are hidden), so the user can delete it.
    listed, _ = ctx.knowledges.list(None, scope.knowledge_base_id)
    assert stuck.id in {k.id for k in listed}


def test_one_housekeeper_at_a_time_runs_a_round(ctx: WorkerContext, key_prefix: str) -> None:
    first = RedisRoundLock(REDIS_URL, key_prefix, ttl_s=60)
    second = RedisRoundLock(REDIS_URL, key_prefix, ttl_s=60)
    try:
        assert first.acquire()
        assert Housekeeper(ctx, second).run_once() is None
        first.release()
        report = Housekeeper(ctx, second).run_once()
        assert report is not None
        # The round gave the lock back.
        assert first.acquire()
        first.release()
    finally:
        first.close()
        second.close()


def test_a_round_survives_an_unreachable_database(ctx: WorkerContext, scope: Scope) -> None:
    row = add_knowledge(ctx, scope, parse_status="deleting")
    backdate(ctx, row.id, QUIET_S)
    healthy, healthy_catalog = ctx.db, ctx.catalog
    ctx.db = Database.from_url(f"postgresql://postgres@127.0.0.1:1/{uuid.uuid4().hex}")
    # Sweep D works through the catalog, on the same database.
    ctx.catalog = ResourceCatalog(
        StorageResourceRepository(ctx.db), AccessGrantRepository(ctx.db), ctx.files
    )
    try:
        report = run_round(ctx)
    finally:
        ctx.db.dispose()
        ctx.db, ctx.catalog = healthy, healthy_catalog
    assert all(counts == {"errors": 1} for counts in report.as_dict().values())
    assert _status(ctx, row.id)[0] == "deleting"
