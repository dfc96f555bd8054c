"""Acting on a stuck round: a new attempt when the automatic requeue budget allows it,
otherwise failed. Either way the old attempt's open spans are closed with TASK_STALLED (the
stall site and the root failed, the rest cancelled), so the timeline shows where it stopped.

Order matters: the guarded row update comes first (it supersedes the old attempt, so a
worker still holding it can no longer move the row), then the spans, then the old
attempt's chunks and index rows go — unless it checkpointed its indexing, whose products
the new attempt resumes from when its parse is the same — and only then is the new
attempt enqueued. If removing
or enqueueing fails, the row is left pending without a task and the next round finds it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from core.statuses import EnableStatus, ParseStatus, SpanStatus
from storage.db.models import Knowledge
from storage.db.repositories.housekeeping import HousekeepingRepository
from storage.events.base import ProgressEvent
from storage.queue.base import QueueError
from workers import task_specs
from workers.enrichment.wiki.retract import retract_round
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.housekeeping.stall_site import StallSite
from workers.housekeeping.wiki import drop_wiki_ops
from workers.housekeeping.wording import requeue_note
from workers.lifecycle.enqueue import document_process_payload
from workers.pipeline.round.cleanup import remove_round_products
from workers.pipeline.round.spans import ROOT, publish_spans

log = logging.getLogger(__name__)

STALLED_CODE = "TASK_STALLED"


@dataclass(frozen=True)
class StuckRound:
    row: Knowledge
    site: StallSite
    message: str
    # Whether a requeue uses up the budget: a round that never started (pending, no span)
    # cannot be what keeps killing workers, so re-enqueueing it is free.
    counted: bool
    # Spans heartbeating since then prove the round alive (None: nothing can be running).
    active_since: datetime | None
    # Held by a wiki ingest past its time limit: failed, never requeued (a new round would
    # wait for the same queue), and its wiki operations removed.
    wiki_expired: bool = False


def recover_round(
    ctx: HousekeepingParts, repo: HousekeepingRepository, stuck: StuckRound
) -> Outcome:
    row = stuck.row
    settings = ctx.settings
    if settings.housekeeping.max_auto_requeues > 0 and not stuck.wiki_expired:
        note = requeue_note(stuck.message, row.attempt + 1)
        attempt = repo.requeue_stalled(
            row,
            active_since=stuck.active_since,
            message=note,
            max_requeues=settings.housekeeping.max_auto_requeues,
            counted=stuck.counted,
        )
        if attempt is not None:
            _close_spans(ctx, stuck)
            if not _resumable(ctx, row):
                _remove_products(ctx, row)
            # The new round's ingest writes the wiki anew; the old round can write no more.
            retract_round(ctx, row.id, row.attempt)
            _enqueue(ctx, row, attempt)
            _publish(ctx, row.id, attempt, ParseStatus.PENDING, note)
            log.warning("knowledge %s: %s", row.id, note)
            return Outcome.REQUEUED
    if repo.fail_stalled(row, active_since=stuck.active_since, message=stuck.message):
        _close_spans(ctx, stuck)
        # A round that had finished indexing keeps its searchable chunks; a partial one
        # leaves nothing behind, as a failed attempt of the pipeline would.
        if row.enable_status != EnableStatus.ENABLED:
            _remove_products(ctx, row)
        if stuck.wiki_expired:
            drop_wiki_ops(ctx, row.id)
        _publish(ctx, row.id, row.attempt, ParseStatus.FAILED, stuck.message)
        log.warning("knowledge %s: %s", row.id, stuck.message)
        return Outcome.FAILED
    return Outcome.MOVED


def _close_spans(ctx: HousekeepingParts, stuck: StuckRound) -> None:
    failed = {ROOT: SpanStatus.FAILED}
    if stuck.site.span_name is not None:
        failed[stuck.site.span_name] = SpanStatus.FAILED
    closed = ctx.spans.close_open(
        stuck.row.id,
        stuck.row.attempt,
        SpanStatus.CANCELLED,
        STALLED_CODE,
        stuck.message,
        status_by_name=failed,
    )
    publish_spans(ctx.publisher, closed)


def _resumable(ctx: HousekeepingParts, row: Knowledge) -> bool:
    """The stuck round, or one before it that it never got to take over (it stalled before
    starting), checkpointed its indexing — a checkpoint goes with the products it describes,
    so they are intact: the new round takes them over if its parse is the same, and removes
    them itself if not."""
    return ctx.index_checkpoints.get(row.id) is not None


def _remove_products(ctx: HousekeepingParts, row: Knowledge) -> None:
    """The stuck attempt's (and older) chunks and index rows, through the same attempt-scoped
    cleanup the pipeline uses, so a newer round's products are never touched."""
    kb = ctx.knowledge_bases.get(None, row.knowledge_base_id)
    model_key = kb.embedding_model_key if kb is not None else ""
    remove_round_products(ctx, row.id, row.attempt, model_key, and_older=True)


def _enqueue(ctx: HousekeepingParts, row: Knowledge, attempt: int) -> None:
    # Not enqueue_processing: a refused enqueue leaves the row pending for the next round
    # instead of failing it. At the front: the round has waited its turn once already.
    payload = document_process_payload(row, attempt)
    try:
        ctx.queue.enqueue(task_specs.document_process(ctx.settings, payload, at_front=True))
    except QueueError:
        log.exception(
            "knowledge %s: enqueue of attempt %d failed; next round retries", row.id, attempt
        )


def _publish(
    ctx: HousekeepingParts, knowledge_id: str, attempt: int, status: str, note: str
) -> None:
    ctx.publisher.publish(
        ProgressEvent(
            knowledge_id=knowledge_id,
            attempt=attempt,
            kind="state",
            data={"parse_status": status, "error_message": note},
        )
    )
