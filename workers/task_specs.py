"""How each task is queued: queue, retries, time limit, identity (spec: task options)."""

from __future__ import annotations

from storage.queue.base import QueueName, TaskSpec
from workers.payloads import DocumentProcessPayload
from workers.settings import Settings


def document_process(settings: Settings, payload: DocumentProcessPayload) -> TaskSpec:
    return TaskSpec(
        handler="workers.tasks.process_document",
        payload=payload.to_dict(),
        queue=QueueName.DEFAULT,
        job_id=f"document-process-{payload.knowledge_id}-{payload.attempt}",
        max_retries=settings.document_process_retries,
        timeout_s=settings.document_process_timeout_s,
        on_final_failure="workers.tasks.on_document_process_failed",
        group=payload.knowledge_id,
    )
