"""knowledge:auto_tag — a document's tags picked by a model (spec: «Автоматические теги
документа»), queued by the postprocess stage when the knowledge base's auto_tag config is
enabled, on the summary queue.

The knowledge base's summary model reads the round's enabled text chunks (as the summary
does, within its budget: ``summary_text.summary_source``) — not the summary, which is
queued at the same moment and is usually not written yet — and picks up to ``max_tags``
(default 3, at most 10) of the knowledge base's existing tags (``auto_tag_text``). Tags are
only ever added: none is created, none removed, so manual tags stay; a document that has
tags is left alone unless ``retag_tagged``. The links are written only while the knowledge
is at its round (``TagRepository.add_links``): a round reparsed, cancelled or deleted
meanwhile gets nothing.

It is not one of the round's counted subtasks: the document completes without waiting for
it, and its failure never fails the document. Its progress is the step span
``postprocess.auto_tag`` under the round's postprocess stage: done with the tags it linked,
skipped with why (already tagged, no tags, no text), or failed with the reason; a model
that is unavailable is tried again by the queue, a refusal ends it at once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from core.effective_config import resolve
from core.payloads import AutoTagPayload
from core.statuses import ChunkType, ParseStatus
from core.statuses import Stage as StageName
from storage.db.models import Knowledge
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.tags import TagRepository
from workers.enrichment.auto_tag_text import pick_tags
from workers.enrichment.summary_text import summary_source
from workers.models.errors import ModelError
from workers.models.registry import ModelRegistry
from workers.pipeline.document import queue_try_of
from workers.pipeline.round.checkpoint import row_is_current
from workers.pipeline.round.parts import CheckpointParts, RoundSpanParts
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id

log = logging.getLogger(__name__)

# Not a counted subtask: the round may complete before its tags are picked.
TAGGED_ROUND_STATUSES = (ParseStatus.PROCESSING, ParseStatus.FINALIZING, ParseStatus.COMPLETED)

STEP_SPAN = "postprocess.auto_tag"
NO_SUMMARY_MODEL = "NO_SUMMARY_MODEL"
SUPERSEDED = "SUPERSEDED"
# The tags offered to the model, by name: the enum of one request stays a reasonable size.
MAX_CANDIDATE_TAGS = 1000


class AutoTagParts(RoundSpanParts, CheckpointParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def tags(self) -> TagRepository: ...
    @property
    def models(self) -> ModelRegistry: ...


def auto_tag_knowledge(parts: AutoTagParts, payload: AutoTagPayload) -> Sequence[str]:
    """Link the picked tags; the tag ids linked. Raises ModelError for a failure the queue
    should retry."""
    knowledge = parts.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, payload.attempt, TAGGED_ROUND_STATUSES):
        log.info(
            "knowledge %s attempt %s: no auto-tags, not current",
            payload.knowledge_id,
            payload.attempt,
        )
        return []
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        return []
    config = resolve(kb.config or {}, knowledge.process_overrides)
    tracker = tracker_of(parts, knowledge, payload.attempt)
    tracker.begin_step(
        STEP_SPAN,
        stage=StageName.POSTPROCESS,
        parent_id=stage_span_id(parts.spans, knowledge.id, payload.attempt, StageName.POSTPROCESS),
        inputs={
            "model": config.summary_model.model,
            "max_tags": config.auto_tag_max_tags,
            "retag_tagged": config.auto_tag_retag_tagged,
            "queue_try": queue_try_of(parts).attempt_number,
        },
    )
    unless_tagged = not config.auto_tag_retag_tagged
    if unless_tagged and parts.tags.tags_of([knowledge.id], tenant_id=None)[knowledge.id]:
        tracker.skip(STEP_SPAN, "the document has tags already (auto_tag.retag_tagged is off)")
        return []
    tags, _ = parts.tags.list(kb.id, tenant_id=None, limit=MAX_CANDIDATE_TAGS, offset=0)
    if not tags:
        tracker.skip(STEP_SPAN, "the knowledge base has no tags to pick from")
        return []
    model = parts.models.chat(config.summary_model)
    if model is None:
        ended_failed(
            tracker,
            knowledge,
            NO_SUMMARY_MODEL,
            "the knowledge base names no summary model (summary.model)",
        )
        return []
    texts = [
        c.content
        for c in parts.chunks.list_of_types(knowledge.id, payload.attempt, [ChunkType.TEXT])
        if c.is_enabled
    ]
    if not texts:
        tracker.skip(STEP_SPAN, "the round has no text to read")
        return []
    by_name = {tag.name: tag.id for tag in tags}
    try:
        picked = pick_tags(
            model,
            list(by_name),
            config.auto_tag_max_tags,
            knowledge.title or knowledge.file_name or "",
            summary_source(texts),
        )
    except ModelError as exc:
        if exc.retryable and not queue_try_of(parts).is_last_attempt:
            tracker.fail(STEP_SPAN, exc.code, f"{exc} (tried again)")
            raise
        ended_failed(tracker, knowledge, exc.code, str(exc))
        return []
    linked = parts.tags.add_links(
        knowledge.id,
        payload.attempt,
        TAGGED_ROUND_STATUSES,
        [by_name[name] for name in picked],
        unless_tagged=unless_tagged,
    )
    if linked is None:
        tracker.fail(STEP_SPAN, SUPERSEDED, "the round was reparsed, cancelled or deleted")
        return []
    names = {tag_id: name for name, tag_id in by_name.items()}
    tracker.end(
        STEP_SPAN,
        {"picked": picked, "linked": [names[t] for t in linked], "candidates": len(tags)},
    )
    return linked


def ended_failed(tracker: SpanTracker, knowledge: Knowledge, code: str, message: str) -> None:
    """Auto-tagging failed for good: the step says why; the document is not touched."""
    log.warning("knowledge %s: auto-tags failed: %s", knowledge.id, message)
    tracker.fail(STEP_SPAN, code, message)


def tracker_of(parts: RoundSpanParts, knowledge: Knowledge, attempt: int) -> SpanTracker:
    return round_tracker(parts, knowledge, attempt)
