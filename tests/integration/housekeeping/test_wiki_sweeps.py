"""The wiki's safety net on a real database and the real RQ queue, which no worker consumes
here: a knowledge base whose pending wiki ingest waited past the stale threshold gets its
ingest queued again, at most once per threshold; its finalizing documents are protected
from Sweep A for 48 h, then failed with their wiki operations removed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from redis import Redis
from rq import Queue
from sqlalchemy import update

from core.payloads import WikiIngestPayload
from core.statuses import ParseStatus
from storage.db.models import Knowledge, WikiPendingOp
from storage.db.repositories.wiki_writes import Contribution, WriteOutcome
from storage.queue.base import QueueName
from storage.queue.rq_queue import SERIALIZER, RQTaskQueue, rq_queue_name
from tests.integration.housekeeping.conftest import (
    STALE_AFTER_S,
    Scope,
    add_knowledge,
    backdate,
    open_round,
)
from tests.support.databases import REDIS_URL
from tests.support.wiki_pages import read_page
from workers.context import WorkerContext
from workers.enrichment.wiki.ingest import ingest_wiki
from workers.housekeeping.rounds import run_round

QUIET_S = STALE_AFTER_S + 600
WIKI_MAX_AGE_S = 48 * 3600


def held_by_wiki(ctx: WorkerContext, scope: Scope, quiet_s: float) -> Knowledge:
    """A round finalizing on its wiki slot alone, its ingest pending and no task for it,
    nothing touched for ``quiet_s``."""
    row = add_knowledge(ctx, scope, parse_status="finalizing", pending_subtasks_count=1)
    open_round(ctx, row, 1, running=None)
    ctx.wiki_ops.add_ingest(row.tenant_id, row.knowledge_base_id, row.id, 1)
    moment = backdate(ctx, row.id, quiet_s)
    with ctx.db.session() as session:
        session.execute(
            update(WikiPendingOp)
            .where(WikiPendingOp.knowledge_id == row.id)
            .values(created_at=moment)
        )
    return row


def wiki_jobs(ctx: WorkerContext) -> list[str]:
    assert isinstance(ctx.queue, RQTaskQueue)
    name = rq_queue_name(ctx.queue.key_prefix, QueueName.WIKI)
    return Queue(name, connection=Redis.from_url(REDIS_URL), serializer=SERIALIZER).job_ids


def status_of(ctx: WorkerContext, knowledge_id: str) -> tuple[str, int]:
    row = ctx.knowledges.get(knowledge_id, None)
    assert row is not None
    return row.parse_status, row.attempt


def test_an_unconsumed_wiki_queue_is_triggered_again_once_per_threshold(
    ctx: WorkerContext, scope: Scope
) -> None:
    row = held_by_wiki(ctx, scope, QUIET_S)
    now = datetime.now(UTC)

    first = run_round(ctx, now)

    assert first.wiki["wiki_retriggered"] == 1
    assert first.stalled["wiki_held"] == 1, "the wiki ingest protects the document"
    assert status_of(ctx, row.id) == (ParseStatus.FINALIZING, 1)
    [job] = wiki_jobs(ctx)
    assert f"wiki-ingest-{scope.knowledge_base_id}-" in job

    # Nobody consumes the queue: the next rounds within the threshold leave it be...
    again = run_round(ctx, now + timedelta(seconds=STALE_AFTER_S / 2))
    assert again.wiki["wiki_throttled"] == 1 and "wiki_retriggered" not in again.wiki
    assert len(wiki_jobs(ctx)) == 1
    # ...and the first one past it triggers it again.
    later = run_round(ctx, now + timedelta(seconds=STALE_AFTER_S + 1))
    assert later.wiki["wiki_retriggered"] == 1
    assert len(wiki_jobs(ctx)) == 2

    # The queued ingest, once run, ends the round (this knowledge base has no wiki on any
    # more: its document is released).
    assert ingest_wiki(ctx, WikiIngestPayload(scope.knowledge_base_id)) == 1
    assert status_of(ctx, row.id) == (ParseStatus.COMPLETED, 1)


def test_a_wiki_operation_protects_a_document_for_48_hours_then_sweep_a_fails_it(
    ctx: WorkerContext, scope: Scope
) -> None:
    protected = held_by_wiki(ctx, scope, WIKI_MAX_AGE_S - 3600)
    expired = held_by_wiki(ctx, scope, WIKI_MAX_AGE_S + 3600)

    report = run_round(ctx)

    assert report.stalled["wiki_held"] == 1
    assert report.stalled["failed"] == 1, "failed, not requeued: it would wait the same"
    assert status_of(ctx, protected.id) == (ParseStatus.FINALIZING, 1)
    assert status_of(ctx, expired.id) == (ParseStatus.FAILED, 1)
    failed = ctx.knowledges.get(expired.id, None)
    assert failed is not None and "wiki" in (failed.error_message or "")
    assert ctx.wiki_ops.oldest_ingest(expired.id, 1) is None, "its wiki operations are removed"
    assert ctx.wiki_ops.oldest_ingest(protected.id, 1) is not None


def test_a_requeued_round_takes_its_wiki_contributions_out(
    ctx: WorkerContext, scope: Scope
) -> None:
    row = add_knowledge(ctx, scope, parse_status="finalizing", pending_subtasks_count=1)
    open_round(ctx, row, 1, running=None)
    written = ctx.wiki_writes.write(
        Contribution(
            tenant_id=row.tenant_id,
            knowledge_base_id=row.knowledge_base_id,
            knowledge_id=row.id,
            attempt=1,
            slug="pumps",
            title="Pumps",
            body="Hold the red button.",
            contribution="Hold the red button.",
        ),
        0,
    )
    assert written is WriteOutcome.WRITTEN
    backdate(ctx, row.id, QUIET_S)

    report = run_round(ctx)

    assert report.stalled["requeued"] == 1
    assert status_of(ctx, row.id) == (ParseStatus.PENDING, 2)
    assert read_page(ctx.db, row.knowledge_base_id, "pumps") is None
