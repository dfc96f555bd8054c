"""Tasks that arrive too late do nothing: a knowledge that is gone, or a dead letter of an
older round, must not touch what exists now."""

from __future__ import annotations

from core.payloads import DocumentProcessPayload
from workers.context import WorkerContext
from workers.pipeline.document import process_document
from workers.pipeline.round.failure import mark_attempt_failed


def _knowledge(ctx: WorkerContext, attempt: int, status: str) -> DocumentProcessPayload:
    tenant = ctx.tenants.create_tenant("t").id
    kb = ctx.knowledge_bases.create(
        tenant,
        "kb",
        description="",
        type="document",
        config={},
        embedding_model_key="local/all-MiniLM-L6-v2/384",
        storage_backend_id="",
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="manual",
        title="t",
        content="# t",
        file_type="md",
        parse_status=status,
        enable_status="disabled",
        attempt=attempt,
    )
    return DocumentProcessPayload(
        tenant_id=tenant, knowledge_id=row.id, knowledge_base_id=kb.id, attempt=attempt
    )


def test_a_task_for_a_knowledge_that_is_gone_ends_quietly(ctx: WorkerContext) -> None:
    payload = _knowledge(ctx, 1, "pending")
    assert ctx.knowledges.delete(payload.knowledge_id)
    process_document(ctx, payload)  # returns without raising, so the queue acknowledges it
    assert ctx.knowledges.get(payload.knowledge_id, None) is None
    assert ctx.spans.list(payload.knowledge_id, 1, tenant_id=None) == []


def test_a_dead_letter_of_an_older_round_leaves_the_newer_round_alone(
    ctx: WorkerContext,
) -> None:
    newer = _knowledge(ctx, 2, "processing")
    older = DocumentProcessPayload(**{**newer.to_dict(), "attempt": 1})
    mark_attempt_failed(ctx, older, "worker killed")
    row = ctx.knowledges.get(newer.knowledge_id, None)
    assert row is not None and (row.parse_status, row.attempt) == ("processing", 2)

    mark_attempt_failed(ctx, newer, "worker killed")
    failed = ctx.knowledges.get(newer.knowledge_id, None)
    assert failed is not None and failed.parse_status == "failed"
    assert "worker killed" in (failed.error_message or "")


def test_an_older_rounds_task_does_not_start_on_a_newer_round(ctx: WorkerContext) -> None:
    newer = _knowledge(ctx, 2, "pending")
    process_document(ctx, DocumentProcessPayload(**{**newer.to_dict(), "attempt": 1}))
    row = ctx.knowledges.get(newer.knowledge_id, None)
    assert row is not None and (row.parse_status, row.attempt) == ("pending", 2)
    assert ctx.spans.list(newer.knowledge_id, 1, tenant_id=None) == []
