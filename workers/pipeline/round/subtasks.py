"""The end of one enrichment subtask of a round's post-processing (spec: FinalizeSubtask):
the postprocess stage moved the knowledge to finalizing with the count of subtasks it
queued (``stages.postprocess``); each subtask that ends counts itself down atomically, and
the one that reaches 0 completes the knowledge and closes the round's spans."""

from __future__ import annotations

from core.statuses import SpanStatus
from core.statuses import Stage as StageName
from workers.pipeline.round.parts import RoundSpanParts
from workers.pipeline.round.spans import round_tracker
from workers.pipeline.round.state import KnowledgeState


def finish_subtask(ctx: RoundSpanParts, knowledge_id: str, attempt: int) -> bool:
    """One subtask of round ``attempt`` ended (done or failed for good): count it down; the
    last one completes the knowledge and closes the postprocess and root spans. True when
    this call completed it."""
    if not ctx.knowledges.finalize_subtask(knowledge_id, attempt):
        return False
    close_completed_round(ctx, knowledge_id, attempt)
    return True


def close_completed_round(ctx: RoundSpanParts, knowledge_id: str, attempt: int) -> None:
    """The last subtask's decrement completed round ``attempt``: say so, and close its
    postprocess and root spans."""
    KnowledgeState(ctx, knowledge_id, attempt).published_completed()
    row = ctx.knowledges.get(knowledge_id, None)
    if row is None:  # deleted at this moment: its spans went with it
        return
    spans = ctx.spans.list(knowledge_id, attempt, tenant_id=None)
    tracker = round_tracker(ctx, row, attempt)
    tracker.adopt(spans)
    stage = next((s for s in spans if s.name == StageName.POSTPROCESS), None)
    tracker.end(StageName.POSTPROCESS, dict(stage.output or {}) if stage is not None else {})
    tracker.close(SpanStatus.DONE)
