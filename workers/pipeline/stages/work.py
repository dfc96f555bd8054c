"""What the stages of a pipeline hand on to each other: a document round's work (the file's
Markdown, then its chunk plan) and the data-table task's (the tables, then their chunks)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.effective_config import EffectiveConfig
from storage.db.models import Knowledge
from storage.db.repositories.chunks import NewChunk
from workers.pipeline.round.resume import ChunkPlan, PlannedChunk
from workers.pipeline.tables.profile import TableProfile


@dataclass
class DocumentWork:
    """One round of a document: ``knowledge`` as the stages last saw it (a URL download
    sets its file's name and type), the Markdown read from it, the chunks planned."""

    knowledge: Knowledge
    attempt: int
    config: EffectiveConfig
    # The index collection of the knowledge base's embedding model.
    model_key: str
    markdown: str = ""
    plan: ChunkPlan | None = None

    @property
    def planned_chunk_ids(self) -> list[str]:
        return [c.id for c in self.plan.chunks] if self.plan is not None else []


@dataclass
class TableWork:
    """The data-table task of a round: the tables in its text, the chunks written of them."""

    knowledge: Knowledge
    attempt: int
    config: EffectiveConfig
    model_key: str
    profiles: list[TableProfile] = field(default_factory=list)
    # The first chunk index after the round's text chunks.
    first_index: int = 0
    planned: list[PlannedChunk] = field(default_factory=list)
    rows: list[NewChunk] = field(default_factory=list)
