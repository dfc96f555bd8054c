"""Stage postprocess: the round's enrichment orchestrated (spec: «Оркестрация
постобработки»). The subtasks every kind plans are added up (``enrichment_kinds``); none
skips the stage and the round completes at once. Otherwise the knowledge moves processing →
finalizing with that count in one guarded update (a failed write raises, so the task is
retried rather than reporting success), the subtasks are queued, and any that could not be
is counted off at once, so the round never waits for subtasks that do not exist; the
subtasks' own ends (``round.subtasks``) complete it. A data table's summary runs
later as its own task (``data_table``), recorded as a step under this stage. Once planned,
the auto-tags and the knowledge base's profile refresh are queued, uncounted
(``after_planning``).

It runs in the round's own task, or, when the round's images were described by tasks of
their own, in the knowledge:post_process task the last of them queued (``after_images``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from core.extensions import DATA_TABLE_EXTENSIONS
from core.statuses import Stage
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.summaries import SummaryRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import QueueParts, StateParts
from workers.pipeline.round.runner import HandOff, Progress, Skip
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.stages.after_planning import after_planning
from workers.pipeline.stages.question_subtask import QuestionSubtask
from workers.pipeline.stages.summary_subtask import SummarySubtask
from workers.pipeline.stages.wiki_subtask import WikiSubtask
from workers.pipeline.stages.work import DocumentWork


class SubtaskKind(Protocol):
    """One kind of enrichment subtask: its step spans are ``postprocess.{name}...``."""

    @property
    def name(self) -> str: ...

    def planned(self, work: DocumentWork) -> int:
        """How many subtasks of this kind the round gets."""
        ...

    def enqueue(self, work: DocumentWork) -> int:
        """Queue them; how many were queued (fewer when the queue refused some)."""
        ...


class EnrichmentParts(StateParts, QueueParts, Protocol):
    """What planning and queueing the subtasks uses."""

    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def summaries(self) -> SummaryRepository: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def wiki_ops(self) -> WikiOpRepository: ...


def enrichment_kinds(parts: EnrichmentParts) -> Sequence[SubtaskKind]:
    """The kinds a round plans from, in the order they are queued: the summary (0/1), the
    question batches of 20 text chunks (image-only chunks skipped), the wiki (0/1); graph
    chunks join here as they are implemented."""
    return (
        SummarySubtask(parts.queue, parts.summaries, parts.chunks),
        QuestionSubtask(parts.queue, parts.chunks),
        WikiSubtask(parts.queue, parts.wiki_ops, parts.chunks),
    )


class PostprocessStage:
    name = Stage.POSTPROCESS

    def __init__(self, parts: EnrichmentParts, kinds: Sequence[SubtaskKind] | None = None):
        self._parts = parts
        self._kinds = enrichment_kinds(parts) if kinds is None else kinds
        self._planned: dict[str, int] = {}

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        self._planned = {kind.name: kind.planned(work) for kind in self._kinds}
        expected = sum(self._planned.values())
        if not expected:
            after_planning(self._parts, work)
            if (work.knowledge.file_type or "").lower() in DATA_TABLE_EXTENSIONS:
                return Skip("the table summary runs as its own task (step postprocess.datatable)")
            return Skip("no enrichment subtask is planned for this knowledge")
        return {"expected_subtasks": expected, **_per_kind(self._planned)}

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any] | HandOff:
        knowledge = work.knowledge
        expected = sum(self._planned.values())
        if not KnowledgeState(self._parts, knowledge.id, work.attempt).finalize(expected):
            raise Superseded(knowledge.id)
        # The span's outputs are written before any subtask may end it.
        progress({"expected_subtasks": expected}, now=True)
        queued = sum(kind.enqueue(work) for kind in self._kinds if self._planned[kind.name])
        after_planning(self._parts, work)
        if queued >= expected:
            return HandOff(f"{queued} enrichment subtasks queued")
        # Reconcile at once: the subtasks never queued will never count themselves down.
        remaining = self._parts.knowledges.add_pending_subtasks(
            knowledge.id, work.attempt, queued - expected
        )
        if remaining is None:
            raise Superseded(knowledge.id)
        if remaining:
            return HandOff(f"{queued} of {expected} enrichment subtasks queued")
        return {"expected_subtasks": expected, "queued_subtasks": queued}


def _per_kind(planned: Mapping[str, int]) -> dict[str, int]:
    return {f"{name}_subtasks": count for name, count in planned.items() if count}
