"""kb:clone_delete: one batch of clones whose source is gone, through the delete chain (so
their index rows, chunks, graph, wiki and files go too), and a half-made or stale clone
removed the same way before it is made again."""

from __future__ import annotations

from collections.abc import Sequence

from core.payloads import KbCloneDeletePayload
from core.statuses import ParseStatus
from storage.db.repositories.clone_jobs import CloneJobRepository, ItemEnd
from workers.clone.parts import CloneParts
from workers.clone.progress import item_ended
from workers.lifecycle.deletion import delete_marked, mark_deleting


def delete_knowledges(ctx: CloneParts, knowledge_ids: Sequence[str]) -> None:
    """Mark and delete; a row an earlier try marked already is deleted too."""
    mark_deleting(ctx, knowledge_ids)
    rows = [
        row
        for row in ctx.knowledges.get_many(knowledge_ids, tenant_id=None)
        if row.parse_status == ParseStatus.DELETING
    ]
    delete_marked(ctx, rows)


def delete_batch(ctx: CloneParts, payload: KbCloneDeletePayload) -> None:
    if CloneJobRepository(ctx.db).get(payload.job_id, None) is None:
        return
    delete_knowledges(ctx, payload.knowledge_ids)
    item_ended(ctx, payload.job_id, _end(payload))


def delete_batch_failed(ctx: CloneParts, payload: KbCloneDeletePayload, error: str) -> None:
    count = len(payload.knowledge_ids)
    reason = f"deleting {count} clone(s) ({', '.join(payload.knowledge_ids)}) failed: {error}"
    item_ended(ctx, payload.job_id, _end(payload, reason))


def _end(payload: KbCloneDeletePayload, error: str = "") -> ItemEnd:
    return ItemEnd(f"delete:{payload.batch_index}", len(payload.knowledge_ids), error, removed=True)
