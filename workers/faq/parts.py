"""What writing FAQ entries uses of a process's parts (a WorkerContext has them all)."""

from __future__ import annotations

from typing import Protocol

from storage.db.repositories.faq_entries import FaqEntryRepository
from storage.index.milvus_index import MilvusIndex
from workers.pipeline.chunks.indexing import EmbedderProvider


class FaqWriteParts(Protocol):
    @property
    def faq_entries(self) -> FaqEntryRepository: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def embedders(self) -> EmbedderProvider: ...
