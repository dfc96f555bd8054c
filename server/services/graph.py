"""GraphService: the knowledge graphs of the caller's knowledge bases, read.

An entity or relation is the caller's when its knowledge base is (NOT_FOUND alike when it
is missing or another tenant's). Sources of a relation in a knowledge being deleted are
left out: that knowledge has already vanished for its users, and its graph rows go with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import InvalidArgument, NotFound
from core.statuses import ParseStatus
from server.services.identity import Identity
from server.services.image_links import with_image_urls
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import visible
from server.services.paging import Listing, requested_page
from server.services.parts import GraphParts
from server.services.request_limits import check_max_chars
from storage.db.models.graph import ENTITY_NAME_MAX_CHARS, ENTITY_TYPE_MAX_CHARS
from storage.graph.store import Entity, Neighbourhood, Relation

ENTITY = "sluice.v1.Entity"
RELATION = "sluice.v1.Relation"
DEFAULT_ENTITY_PAGE = 50
MAX_ENTITY_PAGE = 100
MAX_DEPTH = 3
DEFAULT_NEIGHBOURS = 50
MAX_NEIGHBOURS = 200
DEFAULT_SOURCE_PAGE = 20
MAX_SOURCE_PAGE = 100


@dataclass(frozen=True)
class SourceChunk:
    """A chunk behind a relation, as GetRelationSources shows it."""

    chunk_id: str
    knowledge_id: str
    knowledge_title: str
    chunk_index: int
    content: str
    description: str


@dataclass(frozen=True)
class RelationSources:
    relation: Relation
    sources: Listing[SourceChunk]


class GraphReadService:
    def __init__(self, ctx: GraphParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def list_entities(
        self,
        identity: Identity,
        knowledge_base_id: str,
        name_contains: str,
        type: str,
        page_size: int,
        page_token: str,
    ) -> Listing[Entity]:
        kb = self._kbs.get_row(identity, knowledge_base_id)
        check_max_chars(name_contains, ENTITY_NAME_MAX_CHARS, "name_contains")
        check_max_chars(type, ENTITY_TYPE_MAX_CHARS, "type")
        page = requested_page(
            page_size or DEFAULT_ENTITY_PAGE,
            page_token,
            # The query the token belongs to: the filters as given (so is their meaning).
            f"entities:{kb.id}:{len(name_contains)}:{name_contains}:{type}",
        )
        limit = min(page.limit, MAX_ENTITY_PAGE)
        graph = self._ctx.graph
        items = graph.find_entities(
            [kb.id], name=name_contains, type=type, limit=limit, offset=page.offset
        )
        total = graph.count_entities([kb.id], name=name_contains, type=type)
        return Listing(items, total, page)

    def get_entity(self, identity: Identity, entity_id: str) -> Entity:
        kb_id = self._entity_kb(identity, entity_id)
        entity = self._ctx.graph.get_entity([kb_id], entity_id)
        if entity is None:  # pruned meanwhile
            raise NotFound(ENTITY, entity_id)
        return entity

    def neighbourhood(
        self, identity: Identity, entity_id: str, depth: int, max_entities: int
    ) -> Neighbourhood:
        violations = []
        if not 0 <= depth <= MAX_DEPTH:
            violations.append(("depth", f"must be between 1 and {MAX_DEPTH} (0 = 1)"))
        if not 0 <= max_entities <= MAX_NEIGHBOURS:
            violations.append(
                (
                    "max_entities",
                    f"must be between 1 and {MAX_NEIGHBOURS} (0 = {DEFAULT_NEIGHBOURS})",
                )
            )
        if violations:
            raise InvalidArgument(violations)
        kb_id = self._entity_kb(identity, entity_id)
        found = self._ctx.graph.neighbourhood(
            [kb_id], entity_id, depth=depth or 1, limit=max_entities or DEFAULT_NEIGHBOURS
        )
        if found is None:
            raise NotFound(ENTITY, entity_id)
        return found

    def relation_sources(
        self, identity: Identity, relation_id: str, page_size: int, page_token: str
    ) -> RelationSources:
        if not relation_id:
            raise InvalidArgument.field("relation_id", "is required")
        page = requested_page(
            page_size or DEFAULT_SOURCE_PAGE, page_token, f"relation_sources:{relation_id}"
        )
        limit = min(page.limit, MAX_SOURCE_PAGE)
        kb_id = self._visible_kb(
            identity, self._ctx.graph.relation_knowledge_base(relation_id), RELATION, relation_id
        )
        relation = self._ctx.graph.get_relation([kb_id], relation_id)
        sources = self._ctx.graph.relation_sources([kb_id], relation_id)
        if relation is None or sources is None:  # pruned meanwhile
            raise NotFound(RELATION, relation_id)
        knowledges = {
            row.id: row
            for row in self._ctx.knowledges.get_many(
                sorted({s.knowledge_id for s in sources}), tenant_id=identity.scope
            )
            if row.parse_status != ParseStatus.DELETING
        }
        shown = [s for s in sources if s.knowledge_id in knowledges]
        window = shown[page.offset : page.offset + limit]
        chunks = {
            c.id: c
            for c in self._ctx.chunks.get_many(
                [s.chunk_id for s in window], tenant_id=identity.scope
            )
        }
        # A chunk removed meanwhile (its round went) is shown without its text.
        contents = with_image_urls(
            self._ctx.catalog,
            self._ctx.files,
            [
                (knowledges[s.knowledge_id].tenant_id, chunks[s.chunk_id].content)
                if s.chunk_id in chunks
                else (knowledges[s.knowledge_id].tenant_id, "")
                for s in window
            ],
        )
        items = [
            SourceChunk(
                chunk_id=s.chunk_id,
                knowledge_id=s.knowledge_id,
                knowledge_title=knowledges[s.knowledge_id].title
                or knowledges[s.knowledge_id].file_name,
                chunk_index=chunks[s.chunk_id].chunk_index if s.chunk_id in chunks else 0,
                content=content,
                description=s.description,
            )
            for s, content in zip(window, contents, strict=True)
        ]
        return RelationSources(relation, Listing(items, len(shown), page))

    def _entity_kb(self, identity: Identity, entity_id: str) -> str:
        if not entity_id:
            raise InvalidArgument.field("entity_id", "is required")
        return self._visible_kb(
            identity, self._ctx.graph.entity_knowledge_base(entity_id), ENTITY, entity_id
        )

    def _visible_kb(
        self, identity: Identity, kb_id: str | None, resource_type: str, name: str
    ) -> str:
        """``kb_id`` when the caller may see that knowledge base; NOT_FOUND naming the
        entity or relation otherwise (as for one that does not exist)."""
        kb = self._ctx.knowledge_bases.get(identity.scope, kb_id) if kb_id else None
        return visible(identity, kb, resource_type, name).id
