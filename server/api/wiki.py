"""sluice.v1.WikiService, and its messages built from the wiki's rows."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import wiki_pb2 as pb
from sluice.v1 import wiki_pb2_grpc as pb_grpc

from core.errors import InvalidArgument
from server.api.budget import fitted, response_budget
from server.api.convert import timestamp
from server.api.deps import ApiDeps
from server.api.rpc import unary
from server.services.wiki_reads import ReadWikiPage
from storage.db.repositories.wiki_reads import WikiPageSummary

Ctx = grpc.aio.ServicerContext[Any, Any]


class WikiServicer(pb_grpc.WikiServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._service = deps.wiki_reads
        self._budget = response_budget(deps.settings.api.max_message_bytes)

    @unary
    async def ListWikiPages(
        self, request: pb.ListWikiPagesRequest, context: Ctx
    ) -> pb.ListWikiPagesResponse:
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._service.list,
            identity,
            request.knowledge_base_id,
            request.query,
            request.page_size,
            request.page_token,
        )
        pages = fitted([page_summary(s) for s in listing.items], self._budget)
        return pb.ListWikiPagesResponse(
            pages=pages, next_page_token=listing.next_page_token(len(pages)), total=listing.total
        )

    @unary
    async def GetWikiPage(
        self, request: pb.GetWikiPageRequest, context: Ctx
    ) -> pb.GetWikiPageResponse:
        identity = await self._deps.auth.identify(context)
        which = request.WhichOneof("page")
        if which == "id":
            read = await asyncio.to_thread(self._service.get_by_id, identity, request.id)
        elif which == "slug":
            read = await asyncio.to_thread(
                self._service.get_by_slug,
                identity,
                request.slug.knowledge_base_id,
                request.slug.slug,
            )
        else:
            raise InvalidArgument.field("page", "set id, or slug (knowledge_base_id and slug)")
        return pb.GetWikiPageResponse(page=wiki_page(read))


def page_summary(summary: WikiPageSummary) -> pb.WikiPageSummary:
    return pb.WikiPageSummary(
        id=summary.id,
        knowledge_base_id=summary.knowledge_base_id,
        slug=summary.slug,
        title=summary.title,
        version=summary.version,
        source_count=summary.source_count,
        updated_at=timestamp(summary.updated_at),
    )


def wiki_page(read: ReadWikiPage) -> pb.WikiPage:
    row = read.row
    return pb.WikiPage(
        id=row.id,
        tenant_id=row.tenant_id,
        knowledge_base_id=row.knowledge_base_id,
        slug=row.slug,
        title=row.title,
        content=row.content,
        version=row.version,
        created_at=timestamp(row.created_at),
        updated_at=timestamp(row.updated_at),
        sources=[
            pb.WikiPageSource(
                knowledge_id=s.knowledge_id,
                title=s.title,
                attempt=s.attempt,
                ingested_at=timestamp(s.ingested_at),
            )
            for s in read.sources
        ],
        links=[
            pb.WikiPageLink(slug=link.slug, page_id=link.page_id, title=link.title)
            for link in read.links
        ],
    )
