"""The end of one enrichment subtask of a round's post-processing (spec: FinalizeSubtask):
the postprocess stage moved the knowledge to finalizing with the count of subtasks it
queued (``stages.postprocess``); each subtask that ends counts itself down atomically, and
the one that reaches 0 completes the knowledge and closes the round's spans."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.effective_config import EffectiveConfig, resolve
from core.statuses import ParseStatus, SpanStatus
from core.statuses import Stage as StageName
from storage.db.models import Knowledge, KnowledgeBase
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from workers.pipeline.round.checkpoint import row_is_current
from workers.pipeline.round.parts import RoundSpanParts
from workers.pipeline.round.spans import SpanTracker, round_tracker
from workers.pipeline.round.state import KnowledgeState

log = logging.getLogger(__name__)


class SubtaskEndParts(RoundSpanParts, Protocol):
    @property
    def subtask_ends(self) -> SubtaskEndRepository: ...


class SubtaskOpenParts(SubtaskEndParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


@dataclass(frozen=True)
class OpenedSubtask:
    """What a subtask's try works on: its knowledge, that knowledge's base and the
    configuration in force for the round."""

    knowledge: Knowledge
    kb: KnowledgeBase
    config: EffectiveConfig


def open_subtask(
    parts: SubtaskOpenParts,
    knowledge_id: str,
    attempt: int,
    subtask: tuple[str, int],
    statuses: Sequence[ParseStatus],
) -> OpenedSubtask | None:
    """Subtask ``(kind, index)`` of round ``attempt``, or None (logged) when its try has
    nothing to do: the knowledge is no longer at that attempt in one of ``statuses``, the
    subtask already ended, or the knowledge base is gone."""
    kind, index = subtask
    knowledge = parts.knowledges.get(knowledge_id, None)
    if not row_is_current(knowledge, attempt, statuses) or (
        parts.subtask_ends.ended(knowledge.id, attempt, kind, index)
    ):
        log.info(
            "%s subtask %s of knowledge %s attempt %s: not current or ended; dropped",
            kind,
            index,
            knowledge_id,
            attempt,
        )
        return None
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        return None
    return OpenedSubtask(knowledge, kb, resolve(kb.config or {}, knowledge.process_overrides))


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


def end_subtask_failed(
    parts: SubtaskEndParts,
    knowledge_id: str,
    attempt: int,
    subtask: tuple[str, int],
    step: str,
    failure: tuple[str, str],
    tracker: SpanTracker,
) -> None:
    """Subtask ``(kind, index)`` of round ``attempt`` failed for good with ``(code,
    message)``: it counts as ended (once), its ``step`` span fails with why, and the round
    completes if it was the last one."""
    kind, index = subtask
    code, message = failure
    ended = parts.subtask_ends.end_once(knowledge_id, attempt, kind, index)
    tracker.fail(step, code, message)
    if ended is None:
        return
    log.warning(
        "knowledge %s attempt %s: %s subtask %s failed: %s",
        knowledge_id,
        attempt,
        kind,
        index,
        message,
    )
    if ended.completed_round:
        close_completed_round(parts, knowledge_id, attempt)
