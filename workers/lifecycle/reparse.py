"""Reparse: a new processing round of a knowledge (spec: «Семантика повторных попыток»).

The caller has already checked any new overrides, so a rejected reparse never gets here
and leaves the running round alone. Then, in the spec's order: a round still in flight has
its queued tasks removed and its running task told to stop; the old rounds' chunks, index
rows and extracted images are removed; only then is the new attempt opened (one guarded
UPDATE: still the attempt we saw, not a draft, not being deleted), the old rounds' wiki
contributions retracted (once no write of theirs can land) and its task queued. Everything
removed is scoped to the old rounds, so a concurrent reparse that got in first keeps its own
round intact.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import case

from core.statuses import IN_FLIGHT, EnableStatus, ParseStatus, SummaryStatus
from storage.db.models import Knowledge
from storage.db.repositories.summary_stale import OPEN_SUMMARY
from storage.events.base import ProgressEvent
from workers.enrichment.wiki.retract import retract_round
from workers.lifecycle.enqueue import enqueue_processing
from workers.lifecycle.images import remove_extracted_images
from workers.lifecycle.parts import RestartParts
from workers.pipeline.round.cleanup import SUPERSEDED, close_round_spans, remove_round_products


class RestartOutcome(StrEnum):
    RESTARTED = "restarted"
    # The knowledge is gone or being deleted.
    GONE = "gone"
    # A draft is published, not reparsed.
    DRAFT = "draft"
    # Another reparse opened a newer round between our read and our write.
    MOVED = "moved"


@dataclass(frozen=True)
class Restart:
    outcome: RestartOutcome
    row: Knowledge | None = None


def restart_processing(
    ctx: RestartParts, row: Knowledge, *, overrides: dict[str, Any] | None = None
) -> Restart:
    """Start round ``row.attempt + 1``; ``overrides`` (when given) replace the stored ones,
    ``enable_multimodel`` included when they set it."""
    if row.parse_status == ParseStatus.DELETING:
        return Restart(RestartOutcome.GONE)
    if row.parse_status == ParseStatus.DRAFT:
        return Restart(RestartOutcome.DRAFT)
    old_attempt = row.attempt
    # A summary refresh queued or running is moot too: the new round writes the summary.
    if row.parse_status in IN_FLIGHT or row.summary_status in OPEN_SUMMARY:
        ctx.queue.cancel_group(row.id)
    kb = ctx.knowledge_bases.get(None, row.knowledge_base_id)
    model_key = kb.embedding_model_key if kb is not None else ""
    remove_round_products(ctx, row.id, old_attempt, model_key, and_older=True)
    remove_extracted_images(ctx, [row.id])
    fields: dict[str, Any] = {
        "enable_status": EnableStatus.DISABLED,
        "error_message": "",
        "pending_subtasks_count": 0,
        "processed_at": None,
        # The new round writes the summary anew: no refresh of the old one is due, and one
        # open (a refresh's) is closed, so the round can plan its own.
        "summary_stale": False,
        "summary_error": None,
        "summary_status": case(
            (Knowledge.summary_status.in_(list(OPEN_SUMMARY)), SummaryStatus.NONE.value),
            else_=Knowledge.summary_status,
        ),
    }
    if overrides is not None:
        fields["process_overrides"] = overrides
        if "enable_multimodel" in overrides:
            fields["enable_multimodel"] = bool(overrides["enable_multimodel"])
    attempt = ctx.knowledges.begin_attempt(row.id, after_attempt=old_attempt, **fields)
    if attempt is None:
        fresh = ctx.knowledges.get(row.id, None)
        gone = fresh is None or fresh.parse_status == ParseStatus.DELETING
        return Restart(RestartOutcome.GONE if gone else RestartOutcome.MOVED, fresh)
    # After the new attempt opened: from then on no wiki write of the old rounds can land.
    retract_round(ctx, row.id, old_attempt)
    # A stopped worker closes these itself; a dead or queued one never would.
    close_round_spans(ctx, row.id, old_attempt, SUPERSEDED, f"attempt {attempt} took over")
    ctx.publisher.publish(
        ProgressEvent(row.id, attempt, "state", {"parse_status": ParseStatus.PENDING})
    )
    fresh = ctx.knowledges.get(row.id, None)
    if fresh is None:
        return Restart(RestartOutcome.GONE)
    enqueue_processing(ctx, fresh)
    return Restart(RestartOutcome.RESTARTED, ctx.knowledges.get(row.id, None))
