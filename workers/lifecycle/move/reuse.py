"""A knowledge's move with reuse_vectors: its index rows relabelled to the target (one
collection: nothing is embedded again), then its rows moved (the commit point:
storage.db.repositories.knowledge_moves), then what derives from its knowledge base moved
or taken out: its graph rows re-pointed at the target's graph, its contributions to the
source's wiki retracted.

Each step may run again: a retried task relabels rows already relabelled (the same ids,
replaced), finds the rows moved already (so it never moves them twice) and re-points a
graph that points at the target already. Until the commit point the knowledge is in the
source; if the last try fails before it, ``undo_index`` relabels its rows back, so it is
wholly in the source again."""

from __future__ import annotations

from storage.db.models import Knowledge
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from workers.enrichment.wiki.retract import retract_round
from workers.lifecycle.move.index_rows import relabel_index_rows
from workers.lifecycle.move.parts import MoveParts


class NotMovable(Exception):
    """The knowledge changed since the job was accepted (processing, deleted, moved
    elsewhere): it stays where it is, and the job says why."""


def move_reusing_vectors(
    ctx: MoveParts, row: Knowledge, source_kb_id: str, target_kb_id: str, index_key: str
) -> None:
    """Move ``row`` (read now) from the source into the target; both index into
    ``index_key``."""
    if row.knowledge_base_id == source_kb_id:
        relabel_index_rows(ctx, index_key, row, target_kb_id)
        if not KnowledgeMoveRepository(ctx.db).move_rows(row.id, source_kb_id, target_kb_id):
            # A reparse, delete or move got in first: its rows go back where it is.
            fresh = ctx.knowledges.get(row.id, None)
            if fresh is not None:
                relabel_index_rows(ctx, index_key, fresh, fresh.knowledge_base_id)
            raise NotMovable(_why(fresh, source_kb_id))
    elif row.knowledge_base_id != target_kb_id:
        raise NotMovable(_why(row, source_kb_id))
    # Moved (now or by an earlier try): what derives from the knowledge base follows.
    ctx.graph.move_knowledge(row.id, row.tenant_id, target_kb_id)
    retract_round(ctx, row.id, row.attempt)


def undo_index(ctx: MoveParts, row: Knowledge, target_kb_id: str, index_key: str) -> None:
    """After the last try failed: a knowledge still in the source (its commit point never
    ran) gets back any of its rows relabelled to the target."""
    if row.knowledge_base_id != target_kb_id:
        relabel_index_rows(ctx, index_key, row, row.knowledge_base_id)


def _why(row: Knowledge | None, source_kb_id: str) -> str:
    if row is None:
        return "the knowledge was deleted"
    if row.knowledge_base_id != source_kb_id:
        return f"the knowledge is in knowledge base {row.knowledge_base_id} now"
    return f"the knowledge is {row.parse_status}; move it once it is processed"
