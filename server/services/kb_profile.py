"""GenerateKnowledgeBaseProfile: the knowledge base's profile queued now (spec: the manual
POST /knowledge-bases/:id/profile/generate), whatever its profile.enabled says and even if
its documents did not change; its summary model writes it (workers.enrichment.kb_profile)."""

from __future__ import annotations

import time
from typing import Protocol

from core.effective_config import resolve
from core.errors import FailedPrecondition
from core.payloads import KnowledgeBaseProfilePayload
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from workers import task_specs
from workers.pipeline.round.parts import QueueParts


class ProfileParts(QueueParts, Protocol):
    """The queue the kb:profile task goes to."""


class KnowledgeBaseProfileService:
    def __init__(self, ctx: ProfileParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._knowledge_bases = knowledge_bases

    def generate(self, identity: Identity, knowledge_base_id: str) -> str:
        """The kb:profile task's job id (one asked within the same 30 seconds joins it).
        NOT_FOUND for a knowledge base that is not the caller's; FAILED_PRECONDITION when
        its config names no summary model."""
        row = self._knowledge_bases.get_row(identity, knowledge_base_id)
        if not resolve(row.config or {}, None).summary_model.configured:
            raise FailedPrecondition(
                "NO_SUMMARY_MODEL",
                row.id,
                "the knowledge base's config names no summary.model to write its profile",
            )
        payload = KnowledgeBaseProfilePayload(row.id, force=True)
        return self._ctx.queue.enqueue(task_specs.kb_profile(payload, time.time()))
