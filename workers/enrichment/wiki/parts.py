"""What the wiki tasks use of their process's parts."""

from __future__ import annotations

from typing import Protocol

from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from storage.db.repositories.wiki_writes import WikiPageWriter
from workers.models.registry import ModelRegistry
from workers.pipeline.round.parts import QueueParts, RoundSpanParts


class WikiRetractParts(QueueParts, Protocol):
    """Taking knowledges out of the wiki: their operations, tombstones and pages."""

    @property
    def wiki_ops(self) -> WikiOpRepository: ...
    @property
    def wiki_writes(self) -> WikiPageWriter: ...


class WikiParts(WikiRetractParts, RoundSpanParts, Protocol):
    """The wiki tasks: the knowledge bases' configs and models, the documents' text, and the
    rounds their ingests end."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def subtask_ends(self) -> SubtaskEndRepository: ...
    @property
    def models(self) -> ModelRegistry: ...
