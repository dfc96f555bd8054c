"""What each lifecycle function uses of its process's parts.

A function is typed against one of these, not against the whole WorkerContext: it reaches
only what it names (mypy holds it to that), so a caller that holds fewer parts (the API's
services, the admin tool) can call it, and any object holding those parts can be handed in.
"""

from __future__ import annotations

from typing import Protocol

from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.enrichment import EnrichmentRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.resources import StorageResourceRepository
from storage.db.repositories.tenants import TenantRepository
from storage.events.base import EventPublisher
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from storage.index.milvus_index import MilvusIndex
from workers.enrichment.wiki.parts import WikiRetractParts
from workers.pipeline.round.parts import QueueParts, RoundProductParts, RoundSpanParts
from workers.settings import Settings


class EnqueueParts(QueueParts, Protocol):
    """Queueing a round's document:process: its retries and time limit come from the
    settings, and a refused round is marked failed on its row."""

    @property
    def settings(self) -> Settings: ...
    @property
    def knowledges(self) -> KnowledgeRepository: ...


class FileParts(Protocol):
    """Deleting stored files, whatever backend holds them."""

    @property
    def files(self) -> BackendScopedFileService: ...


class KnowledgeFileParts(FileParts, Protocol):
    """Deleting the files of deleted knowledges, found through the catalog."""

    @property
    def catalog(self) -> ResourceCatalog: ...


class ImageCleanupParts(FileParts, Protocol):
    """Removing a knowledge's extracted images and their records."""

    @property
    def resources(self) -> StorageResourceRepository: ...


class RestartParts(
    EnqueueParts, ImageCleanupParts, RoundProductParts, RoundSpanParts, WikiRetractParts, Protocol
):
    """Reparse: the old rounds' tasks stopped and products removed, a new round queued."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class DeletionParts(KnowledgeFileParts, WikiRetractParts, Protocol):
    """The knowledge deletion chain: rows marked (and that published), tasks stopped, index
    rows, chunks, graph, wiki operations, tag links, rows and files removed."""

    @property
    def knowledges(self) -> KnowledgeRepository: ...
    @property
    def publisher(self) -> EventPublisher: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def enrichment(self) -> EnrichmentRepository: ...


class TenantDeletionParts(DeletionParts, ImageCleanupParts, Protocol):
    """Deleting a tenant: its keys and row, and everything its knowledges left."""

    @property
    def tenants(self) -> TenantRepository: ...
