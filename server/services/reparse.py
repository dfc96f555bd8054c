"""Reparse and BatchReparse: a new processing round, after the same pre-checks as an upload.

The checks run before anything changes, so a rejected reparse (INVALID_ARGUMENT for bad
overrides, FAILED_PRECONDITION for a missing model) leaves the current round alone. The
round itself is restarted by ``workers.lifecycle.reparse``, which the batch task on the
maintenance queue uses too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sluice.v1 import config_pb2, knowledge_pb2

from core.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound
from core.payloads import BatchReparsePayload
from core.statuses import KnowledgeType, ParseStatus
from server.services.chunking_checks import check_effective_chunking
from server.services.config_json import from_json
from server.services.identity import Identity
from server.services.kb_types import document_kb
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import owned_knowledge
from server.services.overrides import checked_overrides, precheck_models
from server.services.parts import ReparseParts
from server.services.tags import TaggedKnowledge, tagged
from storage.db.models import Knowledge, KnowledgeBase
from workers import task_specs
from workers.lifecycle.reparse import RestartOutcome, restart_processing

_NOT_REPARSED = (ParseStatus.DELETING, ParseStatus.DRAFT)


@dataclass(frozen=True)
class BatchAccepted:
    job_id: str
    accepted: int


class ReparseService:
    def __init__(self, ctx: ReparseParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def reparse(self, identity: Identity, request: knowledge_pb2.ReparseRequest) -> TaggedKnowledge:
        row = owned_knowledge(self._ctx, identity, request.id)
        if row.parse_status == ParseStatus.DRAFT:
            raise _draft(row.id)
        # New overrides replace the stored ones; without them the stored ones are used. An
        # FAQ knowledge base's knowledge holds entries, which no document pipeline makes.
        kb = document_kb(self._kbs.get_row(identity, row.knowledge_base_id))
        overrides: dict[str, Any] | None = None
        config = from_json(row.process_overrides, config_pb2.ProcessConfig())
        if request.HasField("process_config"):
            config = request.process_config
            overrides = checked_overrides(
                config, "process_config", kb.config or {}, self._ctx.settings.url_policy
            )
        else:
            # The knowledge base's config may have changed since they were stored.
            check_effective_chunking(
                kb.config or {}, row.process_overrides or {}, "process_config.chunking"
            )
        self._precheck(kb, row, config)
        result = restart_processing(self._ctx, row, overrides=overrides)
        if result.outcome is RestartOutcome.GONE:
            raise NotFound("sluice.v1.Knowledge", row.id)
        if result.outcome is RestartOutcome.DRAFT:
            raise _draft(row.id)
        if result.outcome is RestartOutcome.MOVED or result.row is None:
            raise Aborted(
                "CONCURRENT_REPARSE",
                row.id,
                "the knowledge was reparsed or changed meanwhile; read it again and retry",
            )
        return tagged(self._ctx.tags, result.row)

    def _precheck(
        self, kb: KnowledgeBase, row: Knowledge, config: config_pb2.ProcessConfig
    ) -> None:
        kb_config = from_json(kb.config, config_pb2.KnowledgeBaseConfig())
        multimodal = (
            config.enable_multimodel
            if config.HasField("enable_multimodel")
            else bool(row.enable_multimodel)
        )
        precheck_models(row.file_type or "", multimodal, kb_config, config)

    def batch_reparse(
        self, identity: Identity, request: knowledge_pb2.BatchReparseRequest
    ) -> BatchAccepted:
        """Accepts the caller's knowledges that can be reparsed (others are skipped) and
        queues one maintenance task for them; the rounds restart as it runs."""
        if request.ids:
            found = self._ctx.knowledges.get_many(list(request.ids), tenant_id=identity.scope)
            rows = [
                row
                for row in found
                if identity.owns(row.tenant_id) and row.parse_status not in _NOT_REPARSED
            ]
        elif request.knowledge_base_id:
            kb = self._kbs.get_row(identity, request.knowledge_base_id)
            rows = self._ctx.knowledges.reprocessable(kb.id, tenant_id=identity.scope)
        else:
            raise InvalidArgument.field("ids", "name knowledges, or a knowledge_base_id instead")
        # An FAQ knowledge base's knowledge is never reparsed (its entries are not a document).
        rows = [row for row in rows if row.type != KnowledgeType.FAQ]
        if not rows:
            return BatchAccepted(job_id="", accepted=0)
        payload = BatchReparsePayload(
            knowledge_ids=[row.id for row in rows], attempts=[row.attempt for row in rows]
        )
        job_id = self._ctx.queue.enqueue(task_specs.batch_reparse(payload))
        return BatchAccepted(job_id=job_id, accepted=len(rows))


def _draft(knowledge_id: str) -> Exception:
    return FailedPrecondition(
        "KNOWLEDGE_IS_DRAFT",
        knowledge_id,
        "a draft is processed when it is published (UpdateManual with status publish)",
    )
