"""A knowledge's index rows relabelled to another knowledge base of the same collection:
the rows are copied in place (the same ids, so the copy replaces the row:
storage.index.row_copy), vectors as stored, nothing embedded again."""

from __future__ import annotations

from storage.db.models import Knowledge
from storage.index.milvus_index import RowOwner
from workers.pipeline.round.parts import RoundProductParts


def relabel_index_rows(
    ctx: RoundProductParts, index_key: str, row: Knowledge, knowledge_base_id: str
) -> int:
    """Every index row of ``row`` in ``index_key``'s collection, now of
    ``knowledge_base_id``; how many were written (rows already there are written again)."""
    chunk_ids = ctx.index.chunk_ids_for_knowledge(index_key, row.id)
    owner = RowOwner(row.tenant_id, knowledge_base_id)
    return ctx.index.copy_rows(index_key, {c: c for c in chunk_ids}, owner)
