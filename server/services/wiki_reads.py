"""WikiService: a knowledge base's wiki pages, listed and read, as the caller may see them.

Pages are written by the wiki task (workers' wiki ingest); this service only reads. A page
is seen through its knowledge base: another tenant's knowledge base, or a page of one, is
NOT_FOUND like a missing one, as is a slug no page of the knowledge base has.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.errors import InvalidArgument, NotFound
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.lookup import visible
from server.services.paging import Listing, requested_page
from server.services.parts import WikiReadParts
from server.services.request_limits import MAX_KEYWORD_CHARS, check_max_chars
from storage.db.models import WikiPage
from storage.db.repositories.wiki_reads import WikiLink, WikiPageSummary, WikiSource

WIKI_PAGE = "sluice.v1.WikiPage"
# Page summaries are small; a wiki is read a screenful at a time.
DEFAULT_WIKI_PAGE_SIZE = 20
MAX_WIKI_PAGE_SIZE = 100
# The slug column's width.
MAX_SLUG_CHARS = 255
# Ids are UUIDs; anything much longer is not one.
MAX_PAGE_ID_CHARS = 64


@dataclass(frozen=True)
class ReadWikiPage:
    """A page as GetWikiPage returns it."""

    row: WikiPage
    sources: list[WikiSource]
    links: list[WikiLink]


class WikiReadService:
    def __init__(self, ctx: WikiReadParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases

    def list(
        self,
        identity: Identity,
        knowledge_base_id: str,
        query: str,
        page_size: int,
        page_token: str,
    ) -> Listing[WikiPageSummary]:
        kb = self._kbs.get_row(identity, knowledge_base_id)
        check_max_chars(query, MAX_KEYWORD_CHARS, "query")
        # A token resumes only the query it was issued for.
        page = requested_page(
            page_size,
            page_token,
            json.dumps(["wiki_pages", kb.id, query]),
            default_size=DEFAULT_WIKI_PAGE_SIZE,
            max_size=MAX_WIKI_PAGE_SIZE,
        )
        rows, total = self._ctx.wiki_reads.list_pages(
            kb.id,
            tenant_id=identity.scope,
            title_or_slug=query or None,
            limit=page.limit,
            offset=page.offset,
        )
        return Listing(rows, total, page)

    def get_by_id(self, identity: Identity, page_id: str) -> ReadWikiPage:
        if not page_id:
            raise InvalidArgument.field("id", "is required")
        check_max_chars(page_id, MAX_PAGE_ID_CHARS, "id")
        row = self._ctx.wiki_reads.get(page_id, identity.scope)
        return self._read(visible(identity, row, WIKI_PAGE, page_id))

    def get_by_slug(self, identity: Identity, knowledge_base_id: str, slug: str) -> ReadWikiPage:
        if not slug:
            raise InvalidArgument.field("slug.slug", "is required")
        check_max_chars(slug, MAX_SLUG_CHARS, "slug.slug")
        kb = self._kbs.get_row(identity, knowledge_base_id)
        row = self._ctx.wiki_reads.by_slug(kb.id, slug, identity.scope)
        if row is None:
            raise NotFound(WIKI_PAGE, f"{kb.id}/{slug}")
        return self._read(row)

    def _read(self, row: WikiPage) -> ReadWikiPage:
        reads = self._ctx.wiki_reads
        return ReadWikiPage(row, reads.sources(row.id), reads.links(row))
