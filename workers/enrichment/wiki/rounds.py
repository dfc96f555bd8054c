"""A wiki ingest's place in its round (spec: FinalizeSubtask, «Семантика повторных
попыток»): the round's wiki slot (0/1 in expected_subtasks) is ended by the ingest that
carries that round's attempt, once (``SubtaskEndRepository.end_once``, kind "wiki"); an
ingest of an older attempt, or of a knowledge gone or no longer finalizing at that attempt,
ends nothing, so it never releases a newer round. Its progress is the step span
``postprocess.wiki`` under the round's postprocess stage."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from core.statuses import ParseStatus
from core.statuses import Stage as StageName
from storage.db.models import Knowledge, WikiPendingOp
from workers.enrichment.wiki.parts import WikiParts
from workers.pipeline.document import queue_try_of
from workers.pipeline.round.checkpoint import row_is_current
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id
from workers.pipeline.round.subtasks import close_completed_round

log = logging.getLogger(__name__)

KIND = "wiki"
STEP = f"{StageName.POSTPROCESS}.{KIND}"
# The round's only wiki subtask.
SLOT = 0
WIKI_ROUND_STATUSES = (ParseStatus.FINALIZING,)


def current_round(parts: WikiParts, op: WikiPendingOp) -> Knowledge | None:
    """The op's knowledge when the op is still its round's and not ended yet."""
    row = parts.knowledges.get(op.knowledge_id, None)
    if not row_is_current(row, op.attempt, WIKI_ROUND_STATUSES):
        return None
    if parts.subtask_ends.ended(row.id, op.attempt, KIND, SLOT):
        return None
    return row


def begin(parts: WikiParts, row: Knowledge, attempt: int, inputs: Mapping[str, Any]) -> SpanTracker:
    queue_try = queue_try_of(parts).attempt_number
    tracker = round_tracker(parts, row, attempt, queue_try=queue_try)
    inputs = {**inputs, "queue_try": queue_try}
    parent = stage_span_id(parts.spans, row.id, attempt, StageName.POSTPROCESS)
    tracker.begin_step(STEP, stage=StageName.POSTPROCESS, parent_id=parent, inputs=inputs)
    return tracker


def end_slot(parts: WikiParts, row: Knowledge, attempt: int) -> bool:
    """Count the round's wiki slot down once (completing the round if it was the last);
    False when the round is no longer current."""
    ended = parts.subtask_ends.end_once(row.id, attempt, KIND, SLOT)
    if ended is None:
        return False
    if ended.completed_round:
        close_completed_round(parts, row.id, attempt)
    return True


def release(parts: WikiParts, op: WikiPendingOp, code: str, message: str) -> None:
    """The op's round gets no wiki (off, no model, a model that cannot be used, its last
    try failed): its step says why and its slot ends, so it leaves finalizing."""
    row = current_round(parts, op)
    if row is not None:
        tracker = begin(parts, row, op.attempt, {"released": True})
        tracker.fail(STEP, code, message)
        if end_slot(parts, row, op.attempt):
            log.warning("knowledge %s attempt %s: wiki released: %s", row.id, op.attempt, message)
    # Last: an op left by a crash before this finds its slot ended and is only removed.
    parts.wiki_ops.remove(op.id)
