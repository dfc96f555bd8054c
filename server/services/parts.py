"""What each API service uses of the parts its process's composition root built.

A service is typed against one of these, not against the whole WorkerContext: it can reach
only what it names (mypy holds it to that), and any object holding those parts can be
handed to it. The services not listed here (ingest, reparse, cancel, deletion) hand their
context on to the workers' lifecycle functions, which take the whole WorkerContext.
"""

from __future__ import annotations

from typing import Protocol

from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from storage.index.milvus_index import MilvusIndex
from workers.context import EmbedderCache
from workers.settings import Settings


class KnowledgeParts(Protocol):
    """Looking a knowledge up (server.services.lookup)."""

    @property
    def knowledges(self) -> KnowledgeRepository: ...


class KnowledgeBaseParts(Protocol):
    """KnowledgeBaseService: the knowledge bases and the storage backends they may bind."""

    @property
    def settings(self) -> Settings: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def files(self) -> BackendScopedFileService: ...


class SearchParts(KnowledgeParts, Protocol):
    """SearchService: the index, the embedders for a query and the chunks it finds."""

    @property
    def settings(self) -> Settings: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def embedders(self) -> EmbedderCache: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def catalog(self) -> ResourceCatalog: ...
    @property
    def files(self) -> BackendScopedFileService: ...


class ResourceParts(KnowledgeParts, Protocol):
    """ResourceCatalogService: the catalog of stored files and their grants."""

    @property
    def settings(self) -> Settings: ...
    @property
    def catalog(self) -> ResourceCatalog: ...
    @property
    def files(self) -> BackendScopedFileService: ...
