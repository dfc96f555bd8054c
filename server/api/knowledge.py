"""sluice.v1.KnowledgeService."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import grpc
from sluice.v1 import knowledge_pb2 as pb
from sluice.v1 import knowledge_pb2_grpc as pb_grpc

from server.api import convert
from server.api.auth import Identity
from server.api.deps import ApiDeps
from server.api.errors import invalid_argument, streaming, unary, unimplemented
from server.api.progress import read_spans
from server.api.upload import receive_upload
from server.api.watch import SpanWatcher
from server.services.image_links import with_image_urls
from server.services.lookup import owned_knowledge
from server.services.paging import fitted, next_page_token, requested_page, response_budget
from server.services.request_limits import MAX_KEYWORD_CHARS, MAX_TAG_ID_CHARS, check_max_chars
from server.services.tags import knowledge_message, knowledge_messages
from server.services.url_import import checked_import_url
from storage.db.models import Knowledge
from storage.db.statuses import EnableStatus

Ctx = grpc.aio.ServicerContext[Any, Any]


class KnowledgeServicer(pb_grpc.KnowledgeServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._ctx = deps.ctx
        self._watcher = SpanWatcher(
            deps.ctx, deps.subscriber, deps.ctx.settings.api.watch_poll_interval_s
        )
        self._budget = response_budget(deps.ctx.settings.api.max_message_bytes)

    async def _owned(self, context: Ctx, knowledge_id: str) -> tuple[Identity, Knowledge]:
        identity = await self._deps.auth.identify(context)
        row = await asyncio.to_thread(owned_knowledge, self._ctx, identity, knowledge_id)
        return identity, row

    @unary
    async def CreateFromFile(
        self, request_iterator: AsyncIterator[pb.CreateFromFileRequest], context: Ctx
    ) -> pb.CreateFromFileResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await receive_upload(
            request_iterator,
            context,
            identity=identity,
            ingest=self._deps.ingest,
            files=self._ctx.files,
            max_bytes=self._ctx.settings.api.max_upload_bytes,
        )
        return pb.CreateFromFileResponse(knowledge=knowledge)

    @unary
    async def CreateManual(
        self, request: pb.CreateManualRequest, context: Ctx
    ) -> pb.CreateManualResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.ingest.create_manual, identity, request)
        return pb.CreateManualResponse(knowledge=knowledge)

    @unary
    async def UpdateManual(
        self, request: pb.UpdateManualRequest, context: Ctx
    ) -> pb.UpdateManualResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.ingest.update_manual, identity, request)
        return pb.UpdateManualResponse(knowledge=knowledge)

    @unary
    async def GetKnowledge(
        self, request: pb.GetKnowledgeRequest, context: Ctx
    ) -> pb.GetKnowledgeResponse:
        _, row = await self._owned(context, request.id)
        knowledge = await asyncio.to_thread(knowledge_message, self._ctx.tags, row)
        return pb.GetKnowledgeResponse(knowledge=knowledge)

    @unary
    async def ListKnowledge(
        self, request: pb.ListKnowledgeRequest, context: Ctx
    ) -> pb.ListKnowledgeResponse:
        identity = await self._deps.auth.identify(context)
        kb = await asyncio.to_thread(
            self._deps.knowledge_bases.get_row, identity, request.knowledge_base_id
        )
        check_max_chars(request.keyword, MAX_KEYWORD_CHARS, "keyword")
        check_max_chars(request.tag_id, MAX_TAG_ID_CHARS, "tag_id")
        check_max_chars(request.file_type, MAX_KEYWORD_CHARS, "file_type")
        statuses = sorted({convert.parse_status_name(s) for s in request.parse_statuses})
        # A token resumes only the query it was issued for.
        query = json.dumps(
            ["knowledges", kb.id, statuses, request.keyword, request.file_type, request.tag_id]
        )
        page = requested_page(request.page_size, request.page_token, query)
        rows, total = await asyncio.to_thread(
            self._ctx.knowledges.list,
            identity.scope,
            kb.id,
            statuses=statuses or None,
            keyword=request.keyword or None,
            file_type=request.file_type or None,
            tag_id=request.tag_id or None,
            limit=page.limit,
            offset=page.offset,
        )
        knowledges = fitted(
            await asyncio.to_thread(knowledge_messages, self._ctx.tags, rows), self._budget
        )
        return pb.ListKnowledgeResponse(
            knowledges=knowledges,
            next_page_token=next_page_token(page, len(knowledges), total),
            total=total,
        )

    @unary
    async def GetSpans(self, request: pb.GetSpansRequest, context: Ctx) -> pb.GetSpansResponse:
        _, row = await self._owned(context, request.knowledge_id)
        return await asyncio.to_thread(read_spans, self._ctx, row, request.attempt)

    @streaming
    async def WatchSpans(  # yields serialized messages: see server.py
        self, request: pb.WatchSpansRequest, context: Ctx
    ) -> AsyncIterator[bytes]:
        _, knowledge = await self._owned(context, request.knowledge_id)
        if request.after_sequence < 0:
            raise invalid_argument("after_sequence", "must not be negative")
        watch = self._watcher.watch(
            knowledge.id,
            request.attempt,
            after_sequence=request.after_sequence,
            after_attempt=request.after_attempt,
        )
        async for message in watch:
            yield message

    @unary
    async def ListChunks(
        self, request: pb.ListChunksRequest, context: Ctx
    ) -> pb.ListChunksResponse:
        _, knowledge = await self._owned(context, request.knowledge_id)
        page = requested_page(request.page_size, request.page_token, f"chunks:{knowledge.id}")
        rows, total = await asyncio.to_thread(
            partial(
                self._ctx.chunks.list_by_knowledge,
                knowledge.id,
                page.limit,
                page.offset,
                tenant_id=knowledge.tenant_id,
            )
        )
        # Chunks link their images by resource reference: each read gets URLs that work now.
        contents = await asyncio.to_thread(
            with_image_urls,
            self._ctx.catalog,
            self._ctx.files,
            [(r.tenant_id, r.content) for r in rows],
        )
        enabled = knowledge.enable_status == EnableStatus.ENABLED
        chunks = fitted(
            [
                convert.chunk(r, c, knowledge_enabled=enabled)
                for r, c in zip(rows, contents, strict=True)
            ],
            self._budget,
        )
        return pb.ListChunksResponse(
            chunks=chunks,
            next_page_token=next_page_token(page, len(chunks), total),
            total=total,
        )

    @unary
    async def CreateFromURL(
        self, request: pb.CreateFromURLRequest, context: Ctx
    ) -> pb.CreateFromURLResponse:
        identity = await self._deps.auth.identify(context)
        # Access first: a caller who may not use the knowledge base learns nothing of the URL.
        await asyncio.to_thread(
            self._deps.knowledge_bases.get_row, identity, request.knowledge_base_id
        )
        # The first line of the SSRF defence: a refused URL goes no further than the handler.
        await asyncio.to_thread(checked_import_url, request.url, self._ctx.settings)
        knowledge = await asyncio.to_thread(self._deps.ingest.create_from_url, identity, request)
        return pb.CreateFromURLResponse(knowledge=knowledge)

    @unary
    async def Reparse(self, request: pb.ReparseRequest, context: Ctx) -> pb.ReparseResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.reparse.reparse, identity, request)
        return pb.ReparseResponse(knowledge=knowledge)

    @unary
    async def CancelParse(
        self, request: pb.CancelParseRequest, context: Ctx
    ) -> pb.CancelParseResponse:
        identity = await self._deps.auth.identify(context)
        cancellation = await asyncio.to_thread(self._deps.cancel.cancel, identity, request.id)
        self._deps.cancel.close_spans_later(cancellation)
        return pb.CancelParseResponse(knowledge=cancellation.knowledge)

    @unary
    async def BatchReparse(
        self, request: pb.BatchReparseRequest, context: Ctx
    ) -> pb.BatchReparseResponse:
        identity = await self._deps.auth.identify(context)
        batch = await asyncio.to_thread(self._deps.reparse.batch_reparse, identity, request)
        return pb.BatchReparseResponse(job_id=batch.job_id, accepted=batch.accepted)

    @unary
    async def DeleteKnowledge(
        self, request: pb.DeleteKnowledgeRequest, context: Ctx
    ) -> pb.DeleteKnowledgeResponse:
        identity = await self._deps.auth.identify(context)
        await asyncio.to_thread(self._deps.deletion.delete, identity, request.id)
        return pb.DeleteKnowledgeResponse()

    @unary
    async def BatchDeleteKnowledge(
        self, request: pb.BatchDeleteKnowledgeRequest, context: Ctx
    ) -> pb.BatchDeleteKnowledgeResponse:
        identity = await self._deps.auth.identify(context)
        batch = await asyncio.to_thread(
            self._deps.deletion.batch_delete, identity, list(request.ids)
        )
        return pb.BatchDeleteKnowledgeResponse(deleted=batch.deleted, failed_ids=batch.failed_ids)

    @unary
    async def MoveKnowledge(
        self, request: pb.MoveKnowledgeRequest, context: Ctx
    ) -> pb.MoveKnowledgeResponse:
        raise unimplemented("MoveKnowledge", "lands with the clone/move issue")

    @unary
    async def RegenerateSummary(
        self, request: pb.RegenerateSummaryRequest, context: Ctx
    ) -> pb.RegenerateSummaryResponse:
        raise unimplemented("RegenerateSummary", "lands with the enrichment issue")
