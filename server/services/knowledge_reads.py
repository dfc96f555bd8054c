"""The reads of KnowledgeService: one knowledge, a page of a knowledge base's knowledge,
a knowledge's chunks and its spans, each as the caller may see it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.statuses import EnableStatus
from server.services.identity import Identity
from server.services.image_links import with_image_urls
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import owned_knowledge
from server.services.paging import Listing, requested_page
from server.services.parts import KnowledgeReadParts
from server.services.progress import SpanReading, read_spans
from server.services.request_limits import MAX_KEYWORD_CHARS, MAX_TAG_ID_CHARS, check_max_chars
from server.services.tags import TaggedKnowledge, all_tagged, tagged
from storage.db.models import Chunk, Knowledge


@dataclass(frozen=True)
class KnowledgeQuery:
    """ListKnowledge's filters ("" / empty: no filter) and page; ``parse_statuses`` as
    stored (ParseStatus values; one the server does not know matches nothing)."""

    knowledge_base_id: str
    parse_statuses: list[str]
    keyword: str
    file_type: str
    tag_id: str
    page_size: int
    page_token: str


@dataclass(frozen=True)
class ReadChunk:
    """A chunk as returned: ``content`` is the row's with its image links made URLs, and
    it is enabled (searchable) only while its knowledge is (``knowledge_enabled``)."""

    row: Chunk
    content: str
    knowledge_enabled: bool


class KnowledgeReadService:
    def __init__(self, ctx: KnowledgeReadParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def owned(self, identity: Identity, knowledge_id: str) -> Knowledge:
        return owned_knowledge(self._ctx, identity, knowledge_id)

    def get(self, identity: Identity, knowledge_id: str) -> TaggedKnowledge:
        return tagged(self._ctx.tags, self.owned(identity, knowledge_id))

    def list(self, identity: Identity, query: KnowledgeQuery) -> Listing[TaggedKnowledge]:
        kb = self._kbs.get_row(identity, query.knowledge_base_id)
        check_max_chars(query.keyword, MAX_KEYWORD_CHARS, "keyword")
        check_max_chars(query.tag_id, MAX_TAG_ID_CHARS, "tag_id")
        check_max_chars(query.file_type, MAX_KEYWORD_CHARS, "file_type")
        statuses = sorted(set(query.parse_statuses))
        # A token resumes only the query it was issued for.
        listed = json.dumps(
            ["knowledges", kb.id, statuses, query.keyword, query.file_type, query.tag_id]
        )
        page = requested_page(query.page_size, query.page_token, listed)
        rows, total = self._ctx.knowledges.list(
            identity.scope,
            kb.id,
            statuses=statuses or None,
            keyword=query.keyword or None,
            file_type=query.file_type or None,
            tag_id=query.tag_id or None,
            limit=page.limit,
            offset=page.offset,
        )
        return Listing(all_tagged(self._ctx.tags, rows), total, page)

    def chunks(
        self, identity: Identity, knowledge_id: str, page_size: int, page_token: str
    ) -> Listing[ReadChunk]:
        knowledge = self.owned(identity, knowledge_id)
        page = requested_page(page_size, page_token, f"chunks:{knowledge.id}")
        rows, total = self._ctx.chunks.list_by_knowledge(
            knowledge.id, page.limit, page.offset, tenant_id=knowledge.tenant_id
        )
        # Chunks link their images by resource reference: each read gets URLs that work now.
        contents = with_image_urls(
            self._ctx.catalog, self._ctx.files, [(r.tenant_id, r.content) for r in rows]
        )
        enabled = knowledge.enable_status == EnableStatus.ENABLED
        chunks = [ReadChunk(r, c, enabled) for r, c in zip(rows, contents, strict=True)]
        return Listing(chunks, total, page)

    def spans(self, identity: Identity, knowledge_id: str, attempt: int) -> SpanReading:
        return read_spans(self._ctx, self.owned(identity, knowledge_id), attempt)
