"""Building a process's parts (its ProcessContext, or WorkerContext for one that reads
documents) from its one Settings: the adapters differ by mode, the code does not. Called by
the composition roots (server.runtime, workers.main, workers.housekeeping.main, server.admin),
never on a part's own first use."""

from __future__ import annotations

from core.clock import SYSTEM_CLOCK, Clock
from core.tls import ClientTls
from storage.db.engine import Database
from storage.db.repositories.access_grants import AccessGrantRepository
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
from storage.events.redis_bus import RedisEventBus
from storage.files.backends import build_file_service
from storage.files.resource_catalog import ResourceCatalog
from storage.graph.sql_store import SqlGraphStore
from storage.index.milvus_index import MilvusIndex
from storage.queue.base import TaskQueue
from storage.queue.rq_queue import RQTaskQueue
from workers.context import EmbedderCache, ProcessContext, WorkerContext
from workers.docreader_client import DocReaderClient
from workers.models.registry import ModelRegistry
from workers.net.service_ports import add_service_port
from workers.settings import Settings


def build_process_context(
    settings: Settings,
    *,
    queue: TaskQueue,
    publisher: EventPublisher,
    clock: Clock = SYSTEM_CLOCK,
) -> ProcessContext:
    storage = settings.storage
    db = Database.from_url(storage.database_url)
    resources = StorageResourceRepository(db)
    files = build_file_service(storage.file_backends, storage.file_default_backend)
    index = MilvusIndex(storage.milvus_uri)
    # A milvus-lite file is served on a random loopback port: the SSRF policy blocks it.
    add_service_port(index.local_server_port or 0)
    return ProcessContext(
        settings=settings,
        db=db,
        tenants=TenantRepository(db),
        knowledge_bases=KnowledgeBaseRepository(db),
        knowledges=KnowledgeRepository(db),
        chunks=ChunkRepository(db),
        spans=SpanRepository(db, clock=clock),
        index_checkpoints=IndexCheckpointRepository(db),
        resources=resources,
        graph=SqlGraphStore(db),
        tags=TagRepository(db),
        faq_entries=FaqEntryRepository(db),
        edits=KnowledgeEditRepository(db),
        summaries=SummaryRepository(db),
        kb_profiles=KnowledgeBaseProfileRepository(db),
        summary_refreshes=SummaryRefreshRepository(db),
        subtask_ends=SubtaskEndRepository(db),
        wiki_ops=WikiOpRepository(db),
        wiki_writes=WikiPageWriter(db),
        wiki_reads=WikiReadRepository(db),
        files=files,
        catalog=ResourceCatalog(resources, AccessGrantRepository(db), files, clock=clock),
        index=index,
        queue=queue,
        publisher=publisher,
        embedders=EmbedderCache(
            local_threads=settings.models.embed_threads, policy=lambda: settings.url_policy
        ),
        models=ModelRegistry(
            policy=lambda: settings.url_policy,
            concurrency=settings.models.model_concurrency,
            timeout_s=settings.models.model_timeout_s,
            max_retries=settings.models.model_max_retries,
        ),
        clock=clock,
    )


def build_context(
    settings: Settings,
    *,
    queue: TaskQueue,
    publisher: EventPublisher,
    docreader_target: str,
    docreader_tls: ClientTls | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> WorkerContext:
    """A process's parts and the docreader client at ``docreader_target`` (TLS with
    ``docreader_tls``)."""
    parts = build_process_context(settings, queue=queue, publisher=publisher, clock=clock)
    # The very same parts, the docreader client added.
    return WorkerContext(
        **vars(parts),
        docreader=DocReaderClient(
            docreader_target,
            timeout_s=settings.docreader.docreader_call_timeout_s,
            max_message_bytes=settings.api.max_message_bytes,
            tls=docreader_tls,
        ),
    )


def build_full_process_context(settings: Settings) -> ProcessContext:
    """Full mode, for a process that reads no document: RQ over Redis, progress over Redis
    pub/sub."""
    return build_process_context(
        settings,
        queue=RQTaskQueue(
            settings.queue.redis_url,
            key_prefix=settings.queue.key_prefix,
            heartbeat_ttl_s=settings.queue.task_heartbeat_ttl_s,
        ),
        publisher=RedisEventBus(settings.queue.redis_url, settings.queue.key_prefix),
    )


def build_full_context(settings: Settings) -> WorkerContext:
    """Full mode: RQ over Redis, progress over Redis pub/sub, docreader over the network."""
    return build_context(
        settings,
        queue=RQTaskQueue(
            settings.queue.redis_url,
            key_prefix=settings.queue.key_prefix,
            heartbeat_ttl_s=settings.queue.task_heartbeat_ttl_s,
        ),
        publisher=RedisEventBus(settings.queue.redis_url, settings.queue.key_prefix),
        docreader_target=settings.docreader.docreader_address,
        docreader_tls=settings.tls.docreader_client_tls,
    )
