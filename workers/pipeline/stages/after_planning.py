"""What follows a round's post-processing planning, outside the subtasks it counts: the
document's auto-tags (knowledge:auto_tag, when the knowledge base's auto_tag config is on)
and a refresh of the knowledge base's profile (spec: «Оркестрация постобработки»,
«Автоматические теги документа», «Обновление описания базы знаний»). Neither is waited
for, so a queue that refuses either is logged and the round goes on."""

from __future__ import annotations

import logging
from typing import Protocol

from core.payloads import AutoTagPayload
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.queue.base import QueueError
from workers import task_specs
from workers.pipeline.round.parts import QueueParts
from workers.pipeline.stages.work import DocumentWork
from workers.profile_request import request_profile_refresh

log = logging.getLogger(__name__)


class AfterPlanningParts(QueueParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


def after_planning(parts: AfterPlanningParts, work: DocumentWork) -> None:
    knowledge = work.knowledge
    if work.config.auto_tag_enabled:
        payload = AutoTagPayload(
            tenant_id=knowledge.tenant_id,
            knowledge_id=knowledge.id,
            knowledge_base_id=knowledge.knowledge_base_id,
            attempt=work.attempt,
        )
        try:
            parts.queue.enqueue(task_specs.auto_tag(payload))
        except QueueError as exc:
            log.warning("enqueue of the auto-tags of knowledge %s failed: %s", knowledge.id, exc)
    request_profile_refresh(parts, knowledge.knowledge_base_id)
