"""A knowledge's move with reparse (spec: cleanupKnowledgeResources, then pending in the
target and document processing queued again): its rows moved first (the commit point),
then its old rounds' products removed from the source's collection, then a new round
opened in the target (``workers.lifecycle.reparse``: the old rounds' wiki contributions
retracted, document:process queued; a manual knowledge's round reads its Markdown, as its
publish's does). A draft is only moved: it is processed when it is published.

A retried task finds the rows moved already and the round not yet restarted (still the
attempt the job was accepted at), and carries on from there; a round restarted already
is never restarted twice."""

from __future__ import annotations

from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from workers.lifecycle.move.parts import MoveParts
from workers.lifecycle.move.reuse import NotMovable
from workers.lifecycle.reparse import RestartOutcome, restart_processing
from workers.pipeline.round.cleanup import remove_round_products


def move_reparsing(
    ctx: MoveParts,
    row: Knowledge,
    attempt: int,
    source_kb_id: str,
    target_kb_id: str,
    source_index_key: str,
) -> None:
    """Move ``row`` (read now; ``attempt``: its round when the job was accepted)."""
    if row.knowledge_base_id == source_kb_id:
        if not KnowledgeMoveRepository(ctx.db).move_rows(row.id, source_kb_id, target_kb_id):
            raise NotMovable(f"the knowledge is {_status(ctx, row.id)}; move it once processed")
    elif row.knowledge_base_id != target_kb_id:
        raise NotMovable(f"the knowledge is in knowledge base {row.knowledge_base_id} now")
    elif row.attempt != attempt:
        return  # restarted in the target by an earlier try
    if row.parse_status == ParseStatus.DRAFT:
        return
    # Its rows are in the source's collection: the restart looks in the target's.
    remove_round_products(ctx, row.id, attempt, source_index_key, and_older=True)
    fresh = ctx.knowledges.get(row.id, None)
    if fresh is None:
        raise NotMovable("the knowledge was deleted")
    restart = restart_processing(ctx, fresh)
    if restart.outcome is RestartOutcome.GONE:
        raise NotMovable("the knowledge was deleted")


def _status(ctx: MoveParts, knowledge_id: str) -> str:
    row = ctx.knowledges.get(knowledge_id, None)
    return "deleted" if row is None else str(row.parse_status)
