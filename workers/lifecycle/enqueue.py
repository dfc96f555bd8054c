"""Queueing the task of a knowledge's round: document:process (the round queues its
datatable:summary itself, workers.pipeline.data_table)."""

from __future__ import annotations

import logging

from core.payloads import DocumentProcessPayload
from core.statuses import ParseStatus
from storage.db.models import Knowledge
from storage.queue.base import QueueError
from workers import task_specs
from workers.lifecycle.parts import EnqueueParts

log = logging.getLogger(__name__)


def enqueue_processing(ctx: EnqueueParts, row: Knowledge) -> bool:
    """Queue the round ``row.attempt``. If the queue refuses, the round is marked failed
    with the reason (the stored file stays, so a reparse can retry); returns whether it
    was queued."""
    try:
        ctx.queue.enqueue(
            task_specs.document_process(ctx.settings, document_process_payload(row, row.attempt))
        )
    except QueueError as exc:
        log.error("enqueue of knowledge %s failed: %s", row.id, exc)
        ctx.knowledges.transition(
            row.id,
            from_statuses=(ParseStatus.PENDING,),
            to_status=ParseStatus.FAILED,
            attempt=row.attempt,
            error_message=f"could not enqueue processing: {exc}; use Reparse to retry",
        )
        return False
    return True


def document_process_payload(row: Knowledge, attempt: int) -> DocumentProcessPayload:
    """The document:process payload of round ``attempt`` of ``row``."""
    return DocumentProcessPayload(
        tenant_id=row.tenant_id,
        knowledge_id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        attempt=attempt,
        file_path=row.file_path or "",
        file_name=row.file_name or "",
        file_type=row.file_type or "",
        enable_multimodel=bool(row.enable_multimodel),
    )
