"""ORM models of every Sluice table; importing this package registers them all."""

from storage.db.models.base import Base, JSONType, UTCDateTime, new_id, utcnow
from storage.db.models.chunk import Chunk, FaqQuestion
from storage.db.models.graph import GraphEntity, GraphMention, GraphRelation, GraphRelationSource
from storage.db.models.index_checkpoint import IndexCheckpoint
from storage.db.models.jobs import FaqImportJob, FaqImportRow, KbCloneItem, KbCloneJob
from storage.db.models.knowledge import Knowledge
from storage.db.models.knowledge_base import KnowledgeBase, KnowledgeTag, Tag
from storage.db.models.move_job import KnowledgeMoveJob
from storage.db.models.resources import AccessGrant, StorageResource
from storage.db.models.span import Span
from storage.db.models.subtask_end import SubtaskEnd
from storage.db.models.tenancy import ApiKey, Tenant
from storage.db.models.wiki import (
    WikiKbTrigger,
    WikiPage,
    WikiPageLink,
    WikiPageSource,
    WikiPendingOp,
    WikiTombstone,
)

__all__ = [
    "AccessGrant",
    "ApiKey",
    "Base",
    "Chunk",
    "FaqImportJob",
    "FaqImportRow",
    "FaqQuestion",
    "GraphEntity",
    "GraphMention",
    "GraphRelation",
    "GraphRelationSource",
    "IndexCheckpoint",
    "JSONType",
    "KbCloneItem",
    "KbCloneJob",
    "Knowledge",
    "KnowledgeBase",
    "KnowledgeMoveJob",
    "KnowledgeTag",
    "Span",
    "StorageResource",
    "SubtaskEnd",
    "Tag",
    "Tenant",
    "UTCDateTime",
    "WikiKbTrigger",
    "WikiPage",
    "WikiPageLink",
    "WikiPageSource",
    "WikiPendingOp",
    "WikiTombstone",
    "new_id",
    "utcnow",
]
