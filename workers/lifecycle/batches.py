"""The maintenance-queue batches behind BatchReparse and BatchDeleteKnowledge."""

from __future__ import annotations

import logging

from core.errors import SluiceError
from core.payloads import BatchReparsePayload, KnowledgeListDeletePayload
from core.statuses import ParseStatus
from workers.lifecycle.deletion import delete_marked
from workers.lifecycle.parts import DeletionParts, RestartParts
from workers.lifecycle.reparse import restart_processing

log = logging.getLogger(__name__)


class BatchIncomplete(SluiceError):
    """Some items failed; the task fails so the queue retries it (done items are skipped)."""


def reparse_batch(ctx: RestartParts, payload: BatchReparsePayload) -> None:
    failed: list[str] = []
    for knowledge_id, attempt in zip(payload.knowledge_ids, payload.attempts, strict=True):
        row = ctx.knowledges.get(knowledge_id, None)
        if row is None or row.attempt != attempt:
            continue  # gone, or restarted since (by an earlier try of this batch, or a user)
        try:
            restart_processing(ctx, row)
        except Exception:  # one knowledge's failure must not hold up the others
            log.exception("batch reparse of knowledge %s failed", knowledge_id)
            failed.append(knowledge_id)
    if failed:
        raise BatchIncomplete(
            f"{len(failed)} of {len(payload.knowledge_ids)} knowledges were not reparsed: "
            + ", ".join(failed)
        )


def delete_listed(ctx: DeletionParts, payload: KnowledgeListDeletePayload) -> None:
    # Only rows still marked deleting: one housekeeping gave back (failed) is not deleted.
    rows = [
        row
        for row in ctx.knowledges.get_many(payload.knowledge_ids, tenant_id=None)
        if row.parse_status == ParseStatus.DELETING
    ]
    delete_marked(ctx, rows)
