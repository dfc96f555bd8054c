"""kb:profile — a knowledge base's profile (spec: «Обновление описания базы знаний»): its
summary model describes what the documents cover, from their titles and summaries
(kb_profile_text), and the description is stored on the knowledge base with the
aggregate's sha256 and the time (GetKnowledgeBase returns it as ``profile``).

An aggregate whose hash is the one stored is not sent to the model again, unless the
request was the on-demand RPC's (``force``). A document summarised or deleted while the
model wrote is seen by checking the aggregate again once the profile is stored: a changed
one is written again (at most ``MAX_PASSES`` times a task), so a trigger that joined this
task while it ran is not lost. A knowledge base with no documents gets an empty profile
without a model call.

An unavailable model is tried again by the queue; a final failure (a refused model, no
summary model) leaves the stored profile as it was, with the reason logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from core.clock import Clock
from core.effective_config import resolve
from core.payloads import KnowledgeBaseProfilePayload
from storage.db.models import KnowledgeBase
from storage.db.repositories.kb_profiles import KnowledgeBaseProfileRepository, ProfileDocument
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from workers.enrichment.kb_profile_text import aggregate_hash, write_profile_text
from workers.models.errors import ModelError
from workers.models.registry import ModelRegistry
from workers.pipeline.document import queue_try_of
from workers.pipeline.round.parts import QueueParts

log = logging.getLogger(__name__)

MAX_PASSES = 3


class ProfileParts(QueueParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def kb_profiles(self) -> KnowledgeBaseProfileRepository: ...
    @property
    def models(self) -> ModelRegistry: ...
    @property
    def clock(self) -> Clock: ...


def refresh_profile(parts: ProfileParts, payload: KnowledgeBaseProfilePayload) -> bool:
    """Write the profile when its aggregate changed (or ``force``); True when written.
    Raises ModelError for a failure the queue should retry."""
    kb = parts.knowledge_bases.get(None, payload.knowledge_base_id)
    if kb is None:
        return False
    stored, force, written = kb.profile_hash, payload.force, False
    for _ in range(MAX_PASSES):
        documents = parts.kb_profiles.documents(kb.id)
        digest = aggregate_hash(documents)
        if digest == stored and not force:
            break
        description: str | None = ""
        if documents:
            try:
                description = _describe(parts, kb, documents)
            except ModelError as exc:
                if exc.retryable and not queue_try_of(parts).is_last_attempt:
                    raise
                log.warning("knowledge base %s: profile not written: %s", kb.id, exc)
                return written
            if description is None:
                return written
        if not parts.kb_profiles.store(kb.id, description or "", digest, parts.clock.now()):
            return written  # the knowledge base was deleted meanwhile
        log.info("knowledge base %s: profile written from %d documents", kb.id, len(documents))
        stored, force, written = digest, False, True
    return written


def _describe(
    parts: ProfileParts, kb: KnowledgeBase, documents: Sequence[ProfileDocument]
) -> str | None:
    """The description, or None (logged) when there is no model or no usable answer."""
    model = parts.models.chat(resolve(kb.config or {}, None).summary_model)
    if model is None:
        log.warning("knowledge base %s: no profile: its config names no summary.model", kb.id)
        return None
    description = write_profile_text(model, kb.name, documents)
    if not description:
        log.warning("knowledge base %s: no profile: the model answered nothing", kb.id)
        return None
    return description
