"""knowledge:post_process — the rest of a round whose images were described by tasks of
their own (spec: TypeKnowledgePostProcess, queued by the last image): the multimodal
stage's span ends with what the images gave, then the postprocess stage runs as it would
have in the round's own task, and the round ends the same way (completed, or finalizing
while its enrichment subtasks run; a failure is retried, the last one fails the round).

It goes on in the round's span tree: the spans the round's task wrote are adopted, not laid
out again. A task of a round that moved on is dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.effective_config import resolve
from core.payloads import KnowledgePostProcessPayload
from core.statuses import SpanStatus
from core.statuses import Stage as StageName
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.queue.base import AttemptInfo
from workers.pipeline.document import DocumentRound, queue_try_of
from workers.pipeline.parts import DocumentParts, DocumentRoundParts
from workers.pipeline.round.checkpoint import RoundCheckpoint, row_is_current
from workers.pipeline.round.runner import Stage
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.round.time_limit import TimeBudget
from workers.pipeline.stages.postprocess import PostprocessStage
from workers.pipeline.stages.work import DocumentWork

log = logging.getLogger(__name__)


def post_process(ctx: DocumentParts, payload: KnowledgePostProcessPayload) -> None:
    knowledge = ctx.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, payload.attempt):
        log.info(
            "post-processing of knowledge %s attempt %s: the round moved on; dropped",
            payload.knowledge_id,
            payload.attempt,
        )
        return
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    state = KnowledgeState(ctx, knowledge.id, payload.attempt)
    if kb is None:
        state.fail("knowledge base not found")
        return
    config = resolve(kb.config or {}, knowledge.process_overrides)
    queue_try = queue_try_of(ctx)
    checkpoint = RoundCheckpoint(ctx, knowledge.id, payload.attempt)
    budget = TimeBudget(queue_try.timeout_s, queue_try.started_at)
    work = DocumentWork(knowledge, payload.attempt, config, kb.embedding_model_key)
    stages = (PostprocessStage(ctx),)
    images = ImageChunkRepository(ctx.db)
    AfterImagesRound(ctx, work, state, queue_try, checkpoint, budget, stages, images).execute(work)


class AfterImagesRound(DocumentRound):
    def __init__(
        self,
        parts: DocumentRoundParts,
        work: DocumentWork,
        state: KnowledgeState,
        queue_try: AttemptInfo,
        checkpoint: RoundCheckpoint,
        budget: TimeBudget,
        stages: Sequence[Stage[DocumentWork]],
        images: ImageChunkRepository,
    ) -> None:
        super().__init__(parts, work, state, queue_try, checkpoint, budget, stages)
        # What the round's images gave.
        self.images = images

    def open(self, work: DocumentWork) -> None:
        spans = self.parts.spans.list(self.knowledge_id, self.attempt, tenant_id=None)
        self.tracker.adopt(spans)
        multimodal = next((s for s in spans if s.name == StageName.MULTIMODAL), None)
        if multimodal is not None and multimodal.status == SpanStatus.RUNNING:
            outcome = self.images.outcome(self.knowledge_id, self.attempt)
            self.tracker.end(StageName.MULTIMODAL, outcome)
