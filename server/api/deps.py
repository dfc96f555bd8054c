"""What the servicers use: the services, the progress bus, the authenticator and the API's
settings; the process's parts stay behind the services (ApiDeps.build hands them out)."""

from __future__ import annotations

from dataclasses import dataclass

from server.api.auth import Authenticator
from server.services.cancel import CancelService
from server.services.chunk_edits import ChunkEditService
from server.services.deletion import DeletionService
from server.services.faq_entries import FaqEntryService
from server.services.faq_imports import FaqImportService
from server.services.graph import GraphReadService
from server.services.ingest import IngestService
from server.services.kb_clone import KnowledgeBaseCloneService
from server.services.kb_profile import KnowledgeBaseProfileService
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.knowledge_edits import KnowledgeEditService
from server.services.knowledge_move import KnowledgeMoveService
from server.services.knowledge_reads import KnowledgeReadService
from server.services.progress import ProgressReads
from server.services.reparse import ReparseService
from server.services.resources import ResourceCatalogService
from server.services.search import SearchService
from server.services.summary_refresh import SummaryRefreshService
from server.services.tag_management import TagManagementService
from server.services.wiki_reads import WikiReadService
from storage.events.base import EventSubscriber
from storage.files.backend_scoped import BackendScopedFileService
from workers.context import ProcessContext
from workers.settings import Settings


@dataclass(frozen=True)
class ApiDeps:
    settings: Settings
    # The storage backends the health service probes (server.api.storage_health).
    files: BackendScopedFileService
    subscriber: EventSubscriber
    auth: Authenticator
    knowledge_bases: KnowledgeBaseService
    knowledge_reads: KnowledgeReadService
    ingest: IngestService
    search: SearchService
    reparse: ReparseService
    cancel: CancelService
    deletion: DeletionService
    resources: ResourceCatalogService
    progress: ProgressReads
    knowledge_edits: KnowledgeEditService
    chunk_edits: ChunkEditService
    tags: TagManagementService
    kb_profiles: KnowledgeBaseProfileService
    summary_refresh: SummaryRefreshService
    graph: GraphReadService
    wiki_reads: WikiReadService
    faq_entries: FaqEntryService
    kb_clones: KnowledgeBaseCloneService
    knowledge_moves: KnowledgeMoveService
    faq_imports: FaqImportService

    @classmethod
    def build(cls, ctx: ProcessContext, subscriber: EventSubscriber) -> ApiDeps:
        kbs = KnowledgeBaseService(ctx)
        auth = Authenticator(
            ctx.tenants,
            required=ctx.settings.api.auth_required,
            default_tenant_id=ctx.settings.default_tenant_id,
            clock=ctx.clock,
        )
        return cls(
            ctx.settings,
            ctx.files,
            subscriber,
            auth,
            kbs,
            KnowledgeReadService(ctx, kbs),
            IngestService(ctx, kbs),
            SearchService(ctx, kbs),
            ReparseService(ctx, kbs),
            CancelService(ctx),
            DeletionService(ctx),
            ResourceCatalogService(ctx),
            ProgressReads(ctx),
            KnowledgeEditService(ctx),
            ChunkEditService(ctx),
            TagManagementService(ctx, kbs),
            KnowledgeBaseProfileService(ctx, kbs),
            SummaryRefreshService(ctx),
            GraphReadService(ctx, kbs),
            WikiReadService(ctx, kbs),
            faq_entries=FaqEntryService(ctx, kbs),
            kb_clones=KnowledgeBaseCloneService(ctx, kbs),
            knowledge_moves=KnowledgeMoveService(ctx, kbs),
            faq_imports=FaqImportService(ctx, kbs),
        )
