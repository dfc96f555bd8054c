"""The parts of a process, built once per process from Settings.

Each process's composition root (server.runtime for lite mode and the full-mode API,
workers.main for an RQ worker, workers.housekeeping.main for the housekeeper) builds its
context with workers.wiring and, where the queue runs task handlers in the process, installs
it for them: lite mode's API, executor and handlers share one. A process that reads no
document (the full-mode API, the housekeeper, the admin tool) builds a ProcessContext; one
that runs task handlers builds a WorkerContext, which adds the docreader client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from core.clock import SYSTEM_CLOCK, Clock
from core.effective_config import EmbeddingModel
from core.ssrf.url_policy import UrlPolicy
from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.edits import KnowledgeEditRepository
from storage.db.repositories.faq_entries import FaqEntryRepository
from storage.db.repositories.index_checkpoints import IndexCheckpointRepository
from storage.db.repositories.kb_profiles import KnowledgeBaseProfileRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.resources import StorageResourceRepository
from storage.db.repositories.spans import SpanRepository
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from storage.db.repositories.summaries import SummaryRepository
from storage.db.repositories.summary_refresh import SummaryRefreshRepository
from storage.db.repositories.tags import TagRepository
from storage.db.repositories.tenants import TenantRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from storage.db.repositories.wiki_reads import WikiReadRepository
from storage.db.repositories.wiki_writes import WikiPageWriter
from storage.events.base import EventPublisher
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from storage.graph.store import GraphStore
from storage.index.milvus_index import MilvusIndex
from storage.queue.base import TaskQueue
from workers.docreader_client import DocReaderClient
from workers.embedding.base import Embedder
from workers.embedding.factory import build_embedder
from workers.models.registry import ModelRegistry
from workers.net.service_ports import discard_service_port
from workers.settings import Settings


@dataclass
class EmbedderCache:
    """One embedder per model configuration; the local model is loaded once per process, on
    `local_threads` onnxruntime threads (0 = one per core). `policy` gives the SSRF policy
    an endpoint's embedder is built with (read when it is built: the process's own ports,
    bound at start-up, are known by then)."""

    local_threads: int = 0
    policy: Callable[[], UrlPolicy] = UrlPolicy
    # By the whole configuration, not the vector space's key: two knowledge bases naming the
    # same model may reach it at different endpoints, with different keys.
    _embedders: dict[EmbeddingModel, Embedder] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, model: EmbeddingModel) -> Embedder:
        with self._lock:
            embedder = self._embedders.get(model)
            if embedder is None:
                embedder = build_embedder(
                    model.provider,
                    model.model,
                    model.base_url,
                    model.api_key,
                    model.dimensions,
                    policy=self.policy(),
                    local_threads=self.local_threads,
                )
                self._embedders[model] = embedder
            return embedder


@dataclass
class ProcessContext:
    """The stores, the queue, the progress events and the models every process reaches."""

    settings: Settings
    db: Database
    tenants: TenantRepository
    knowledge_bases: KnowledgeBaseRepository
    knowledges: KnowledgeRepository
    chunks: ChunkRepository
    spans: SpanRepository
    # How far each round's indexing got (what a retried round resumes from).
    index_checkpoints: IndexCheckpointRepository
    resources: StorageResourceRepository
    # The knowledge graph: what graph extraction found, merged per knowledge base.
    graph: GraphStore
    tags: TagRepository
    # FAQ knowledge bases' entries (chunks of type faq) and their normalised questions.
    faq_entries: FaqEntryRepository
    # Edits of processed knowledges: metadata, chunk content and enabled flags.
    edits: KnowledgeEditRepository
    summaries: SummaryRepository
    # What a knowledge base's profile is written from, and where it is kept.
    kb_profiles: KnowledgeBaseProfileRepository
    # A completed knowledge's summary written again after an edit (or on demand).
    summary_refreshes: SummaryRefreshRepository
    # The ends of the post-processing subtasks that count themselves down once (questions).
    subtask_ends: SubtaskEndRepository
    # The wiki's pending ingests, tombstones and housekeeping triggers, and its page writes.
    wiki_ops: WikiOpRepository
    wiki_writes: WikiPageWriter
    # The wiki pages as WikiService reads them.
    wiki_reads: WikiReadRepository
    # Routes every path to its backend; ``files.for_backend(kb.storage_backend_id)`` writes
    # where a knowledge base is bound.
    files: BackendScopedFileService
    # resource:// references to stored files (originals, extracted images) and their grants.
    catalog: ResourceCatalog
    index: MilvusIndex
    queue: TaskQueue
    publisher: EventPublisher
    embedders: EmbedderCache = field(default_factory=EmbedderCache)
    # The chat and vision models the configurations name (one client per model config).
    models: ModelRegistry = field(default_factory=ModelRegistry)
    # What housekeeping's thresholds, the catalog's grant expiry and the API's key cache are
    # judged by.
    clock: Clock = SYSTEM_CLOCK

    def files_for_knowledge_base(self, knowledge_base_id: str) -> BackendScopedFileService:
        """Where a knowledge base's new files go: the backend instance it is bound to, else
        the default one (UnknownBackendError if it is bound to one no longer configured)."""
        kb = self.knowledge_bases.get(None, knowledge_base_id)
        return self.files.for_backend(kb.storage_backend_id if kb is not None else "")

    def close(self) -> None:
        self.queue.close()
        port = self.index.local_server_port
        self.index.close()
        if port:
            # No longer ours: whoever binds the port next may be fetched.
            discard_service_port(port)
        self.db.dispose()


# Keyword-only: the docreader follows the defaulted fields of ProcessContext.
@dataclass(kw_only=True)
class WorkerContext(ProcessContext):
    """Everything a task handler needs: a process's parts and the docreader client that
    reading a document goes through."""

    docreader: DocReaderClient

    def close(self) -> None:
        self.docreader.close()
        super().close()


_current: WorkerContext | None = None
_current_lock = threading.Lock()


def install_context(ctx: WorkerContext | None) -> None:
    """The composition root hands the task handlers its context (None: the process is done)."""
    global _current
    with _current_lock:
        _current = ctx


def current_context() -> WorkerContext:
    """The context the composition root installed for the task handlers of this process."""
    with _current_lock:
        if _current is None:
            raise RuntimeError("no worker context installed: a task ran outside a started process")
        return _current
