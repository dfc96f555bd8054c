"""sluice.v1.KnowledgeService."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import knowledge_pb2 as pb
from sluice.v1 import knowledge_pb2_grpc as pb_grpc

from server.api import convert
from server.api.auth import Identity
from server.api.deps import ApiDeps
from server.api.errors import invalid_argument, not_found, streaming, unary, unimplemented
from server.api.progress import read_spans
from server.api.upload import receive_upload
from server.api.watch import SpanWatcher
from server.services.image_links import with_image_urls
from server.services.knowledge_bases import next_token, page_window
from server.services.tags import knowledge_message, knowledge_messages
from server.services.url_import import checked_import_url

Ctx = grpc.aio.ServicerContext[Any, Any]


class KnowledgeServicer(pb_grpc.KnowledgeServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._ctx = deps.ctx
        self._watcher = SpanWatcher(
            deps.ctx, deps.subscriber, deps.ctx.settings.watch_poll_interval_s
        )

    async def _owned(self, context: Ctx, knowledge_id: str) -> tuple[Identity, Any]:
        identity = await self._deps.auth.identify(context)
        if not knowledge_id:
            raise invalid_argument("id", "is required")
        row = await asyncio.to_thread(self._ctx.knowledges.get, knowledge_id)
        if row is None or not identity.owns(row.tenant_id) or row.parse_status == "deleting":
            raise not_found("sluice.v1.Knowledge", knowledge_id)
        return identity, row

    @unary
    async def CreateFromFile(
        self, request_iterator: AsyncIterator[pb.CreateFromFileRequest], context: Ctx
    ) -> pb.CreateFromFileResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await receive_upload(
            request_iterator,
            identity=identity,
            ingest=self._deps.ingest,
            files=self._ctx.files,
            max_bytes=self._ctx.settings.max_upload_bytes,
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
        limit, offset = page_window(request.page_size, request.page_token)
        statuses = [convert.parse_status_name(s) for s in request.parse_statuses] or None
        rows, total = await asyncio.to_thread(
            self._ctx.knowledges.list,
            kb.tenant_id,
            kb.id,
            statuses=statuses,
            keyword=request.keyword or None,
            file_type=request.file_type or None,
            tag_id=request.tag_id or None,
            limit=limit,
            offset=offset,
        )
        knowledges = await asyncio.to_thread(knowledge_messages, self._ctx.tags, rows)
        return pb.ListKnowledgeResponse(
            knowledges=knowledges,
            next_page_token=next_token(offset, len(rows), total),
            total=total,
        )

    @unary
    async def GetSpans(self, request: pb.GetSpansRequest, context: Ctx) -> pb.GetSpansResponse:
        _, row = await self._owned(context, request.knowledge_id)
        return await asyncio.to_thread(read_spans, self._ctx, row, request.attempt)

    @streaming
    async def WatchSpans(
        self, request: pb.WatchSpansRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchSpansResponse]:
        await self._owned(context, request.knowledge_id)
        if request.after_sequence < 0:
            raise invalid_argument("after_sequence", "must not be negative")
        watch = self._watcher.watch(
            request.knowledge_id,
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
        await self._owned(context, request.knowledge_id)
        limit, offset = page_window(request.page_size, request.page_token)
        rows, total = await asyncio.to_thread(
            self._ctx.chunks.list_by_knowledge, request.knowledge_id, limit, offset
        )
        # Chunks link their images by resource reference: each read gets URLs that work now.
        contents = await asyncio.to_thread(
            with_image_urls,
            self._ctx.catalog,
            self._ctx.files,
            [(r.tenant_id, r.content) for r in rows],
        )
        return pb.ListChunksResponse(
            chunks=[convert.chunk(r, c) for r, c in zip(rows, contents, strict=True)],
            next_page_token=next_token(offset, len(rows), total),
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
