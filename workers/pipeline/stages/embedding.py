"""Stage embedding: vectors in batches, each batch indexed as soon as it is embedded and
then checkpointed, from the first chunk an earlier try of the same parse did not index.
Before and after embedding each batch the round checks whether it must stop, so once told
to, it indexes nothing beyond a batch it may be writing at that moment. After each batch
the span says whether the rest will fit in the try's time limit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.index_sides import index_sides
from core.statuses import Stage
from storage.db.repositories.index_checkpoints import IndexCheckpointRepository
from workers.embedding.base import (
    EmbeddingEndpointRefused,
    EmbeddingError,
    EmbeddingProviderError,
)
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.errors import EmbeddingFailed, ModelEndpointRefused
from workers.pipeline.round.resume import ChunkPlan
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.round.time_limit import TimeBudget
from workers.pipeline.stages.work import DocumentWork


class EmbeddingStage:
    name = Stage.EMBEDDING

    def __init__(
        self,
        indexer: ChunkIndexer,
        index_checkpoints: IndexCheckpointRepository,
        checkpoint: RoundCheckpoint,
        budget: TimeBudget,
    ) -> None:
        self._indexer = indexer
        self._index_checkpoints = index_checkpoints
        self._checkpoint = checkpoint
        self._budget = budget

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        sides = index_sides(work.model_key, work.config)
        if not sides.any:
            return Skip("vector and keyword indexing are both disabled")
        plan = _plan(work)
        return {
            "model": work.model_key,
            "vector": sides.dense,
            "keyword": sides.keyword,
            "chunks": len(plan.chunks),
            **_resumed(plan),
        }

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any]:
        plan = _plan(work)
        total = len(plan.chunks)
        resumed = _resumed(plan)

        def batch_indexed(done: int) -> None:
            self._index_checkpoints.advance(work.knowledge.id, work.attempt, plan.fingerprint, done)
            progress({"chunks_embedded": done, **resumed, **self._budget.report(done, total)})

        try:
            outcome = self._indexer.index_chunks(
                work.knowledge,
                work.model_key,
                work.config.embedding,
                plan.chunks,
                check=self._checkpoint.check,
                on_progress=batch_indexed,
                start=plan.indexed,
                keyword=index_sides(work.model_key, work.config).keyword,
            )
        except EmbeddingEndpointRefused as exc:
            raise ModelEndpointRefused(self.name, str(exc)) from exc
        except EmbeddingError as exc:
            # A request the provider refused (bad credentials, an unknown model) is refused
            # again on every retry: the round fails now, with the provider's reason.
            final = isinstance(exc, EmbeddingProviderError) and exc.final
            raise EmbeddingFailed(self.name, str(exc), permanent=final) from exc
        return {
            "chunks_embedded": outcome.indexed,
            "chunks_indexed": outcome.indexed,
            **resumed,
            "dimension": outcome.dimension,
        }


def _plan(work: DocumentWork) -> ChunkPlan:
    if work.plan is None:
        raise RuntimeError("the embedding stage runs after chunking")
    return work.plan


def _resumed(plan: ChunkPlan) -> dict[str, int]:
    return {"chunks_resumed": plan.indexed} if plan.indexed else {}
