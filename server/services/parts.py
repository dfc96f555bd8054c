"""What each API service uses of the parts its process's composition root built.

A service is typed against one of these, not against the whole WorkerContext: it can reach
only what it names (mypy holds it to that), and any object holding those parts can be
handed to it. A service that hands its parts on to the workers' lifecycle functions names
what those use too (workers.lifecycle.parts). The servicers (server.api)
reach none of these: they call the services.
"""

from __future__ import annotations

from typing import Protocol

from core.clock import Clock
from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.edits import KnowledgeEditRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.spans import SpanRepository
from storage.db.repositories.tags import TagRepository
from storage.db.repositories.wiki_reads import WikiReadRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from storage.graph.store import GraphStore
from storage.index.milvus_index import MilvusIndex
from storage.queue.base import TaskQueue
from workers.context import EmbedderCache
from workers.enrichment.wiki.parts import WikiRetractParts
from workers.lifecycle.parts import DeletionParts, EnqueueParts, RestartParts
from workers.pipeline.round.parts import QueueParts, RoundProductParts, RoundSpanParts
from workers.settings import Settings


class KnowledgeParts(Protocol):
    """Looking a knowledge up (server.services.lookup)."""

    @property
    def knowledges(self) -> KnowledgeRepository: ...


class StoredFileParts(Protocol):
    """The stored files and their catalog records (originals, images, grants)."""

    @property
    def catalog(self) -> ResourceCatalog: ...
    @property
    def files(self) -> BackendScopedFileService: ...


class TagParts(Protocol):
    """The tags a knowledge message carries (server.services.tags)."""

    @property
    def tags(self) -> TagRepository: ...


class ProgressParts(KnowledgeParts, Protocol):
    """Reading a knowledge's spans for its watchers (server.services.progress)."""

    @property
    def spans(self) -> SpanRepository: ...


class SpanReadParts(ProgressParts, Protocol):
    """GetSpans: the spans, and for the stall verdict the clock and the task queue."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def queue(self) -> TaskQueue: ...


class KnowledgeReadParts(SpanReadParts, TagParts, StoredFileParts, Protocol):
    """KnowledgeReadService: knowledges with their tags, their chunks (their images made
    URLs through the catalog) and their spans."""

    @property
    def chunks(self) -> ChunkRepository: ...


class KnowledgeBaseParts(Protocol):
    """KnowledgeBaseService: the knowledge bases and the storage backends they may bind."""

    @property
    def settings(self) -> Settings: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def files(self) -> BackendScopedFileService: ...


class GraphParts(KnowledgeParts, StoredFileParts, Protocol):
    """GraphReadService: the knowledge graph, and the chunks behind its relations (their
    images made URLs through the catalog)."""

    @property
    def graph(self) -> GraphStore: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class SearchParts(GraphParts, Protocol):
    """SearchService: the index, the embedders for a query and the chunks it finds (their
    images made URLs through the catalog), and the graph it may expand them through."""

    @property
    def settings(self) -> Settings: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def embedders(self) -> EmbedderCache: ...


class ResourceParts(KnowledgeParts, StoredFileParts, Protocol):
    """ResourceCatalogService: the catalog of stored files and their grants."""

    @property
    def settings(self) -> Settings: ...


class IngestParts(KnowledgeParts, TagParts, StoredFileParts, EnqueueParts, Protocol):
    """IngestService: new knowledges, their originals stored and catalogued, their first
    round queued."""


class ReparseParts(KnowledgeParts, TagParts, RestartParts, Protocol):
    """ReparseService: a knowledge's new round, or a batch of them queued."""


class CancelParts(
    KnowledgeParts,
    TagParts,
    WikiRetractParts,
    QueueParts,
    RoundProductParts,
    RoundSpanParts,
    Protocol,
):
    """CancelService: the round's tasks stopped, its products removed, its spans closed."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class KnowledgeDeletionParts(KnowledgeParts, DeletionParts, Protocol):
    """DeletionService: the knowledge deletion chain, run here or queued as a batch."""


class EditParts(Protocol):
    """Edits of processed knowledges (storage.db.repositories.edits)."""

    @property
    def edits(self) -> KnowledgeEditRepository: ...


class KnowledgeEditParts(KnowledgeParts, TagParts, EditParts, QueueParts, Protocol):
    """KnowledgeEditService: a knowledge's metadata and tags replaced (a metadata change
    queues the summary refresh it calls for)."""


class SummaryRefreshParts(KnowledgeParts, TagParts, EditParts, QueueParts, Protocol):
    """SummaryRefreshService: RegenerateSummary's refresh queued (the knowledge base says
    whether there is a summary model)."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class ChunkEditParts(KnowledgeParts, StoredFileParts, EditParts, QueueParts, Protocol):
    """ChunkEditService: a chunk's row and its index row changed together, its new text
    embedded with its knowledge base's model (its images made URLs in the reply), and the
    summary refresh the edit calls for queued; a content edit's graph rows replaced."""

    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def graph(self) -> GraphStore: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def embedders(self) -> EmbedderCache: ...


class WikiReadParts(Protocol):
    """WikiReadService: the wiki pages (their knowledge bases through KnowledgeBaseService)."""

    @property
    def wiki_reads(self) -> WikiReadRepository: ...


class FaqImportParts(Protocol):
    """Starting an FAQ import and reading its job (server.services.faq_imports)."""

    @property
    def clock(self) -> Clock: ...
    @property
    def db(self) -> Database: ...
    @property
    def files(self) -> BackendScopedFileService: ...
    @property
    def queue(self) -> TaskQueue: ...
