"""sluice.v1.KnowledgeService."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import knowledge_pb2 as pb
from sluice.v1 import knowledge_pb2_grpc as pb_grpc
from sluice.v1.knowledge_base_pb2 import JOB_STATUS_COMPLETED, JOB_STATUS_FAILED

from core.errors import InvalidArgument
from server.api import convert
from server.api.budget import fitted, response_budget
from server.api.deps import ApiDeps
from server.api.move_progress import mode_of, mode_value, move_progress
from server.api.rpc import streaming, unary
from server.api.upload import receive_upload
from server.api.watch import SpanWatcher
from server.services.job_watch import watch_job
from server.services.kb_types import document_kb
from server.services.knowledge_reads import KnowledgeQuery
from server.services.url_import import checked_import_url

Ctx = grpc.aio.ServicerContext[Any, Any]


class KnowledgeServicer(pb_grpc.KnowledgeServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._settings = deps.settings
        self._watcher = SpanWatcher(
            deps.progress, deps.subscriber, deps.settings.api.watch_poll_interval_s
        )
        self._reads = deps.knowledge_reads
        self._budget = response_budget(deps.settings.api.max_message_bytes)

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
            max_bytes=self._settings.api.max_upload_bytes,
        )
        return pb.CreateFromFileResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def CreateManual(
        self, request: pb.CreateManualRequest, context: Ctx
    ) -> pb.CreateManualResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.ingest.create_manual, identity, request)
        return pb.CreateManualResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def UpdateManual(
        self, request: pb.UpdateManualRequest, context: Ctx
    ) -> pb.UpdateManualResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.ingest.update_manual, identity, request)
        return pb.UpdateManualResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def GetKnowledge(
        self, request: pb.GetKnowledgeRequest, context: Ctx
    ) -> pb.GetKnowledgeResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._reads.get, identity, request.id)
        return pb.GetKnowledgeResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def ListKnowledge(
        self, request: pb.ListKnowledgeRequest, context: Ctx
    ) -> pb.ListKnowledgeResponse:
        identity = await self._deps.auth.identify(context)
        query = KnowledgeQuery(
            knowledge_base_id=request.knowledge_base_id,
            parse_statuses=[convert.parse_status_name(s) for s in request.parse_statuses],
            keyword=request.keyword,
            file_type=request.file_type,
            tag_id=request.tag_id,
            page_size=request.page_size,
            page_token=request.page_token,
        )
        listing = await asyncio.to_thread(self._reads.list, identity, query)
        knowledges = fitted([convert.knowledge(k) for k in listing.items], self._budget)
        return pb.ListKnowledgeResponse(
            knowledges=knowledges,
            next_page_token=listing.next_page_token(len(knowledges)),
            total=listing.total,
        )

    @unary
    async def GetSpans(self, request: pb.GetSpansRequest, context: Ctx) -> pb.GetSpansResponse:
        identity = await self._deps.auth.identify(context)
        reading = await asyncio.to_thread(
            self._reads.spans, identity, request.knowledge_id, request.attempt
        )
        return convert.spans(reading)

    @streaming
    async def WatchSpans(  # yields serialized messages: see server.py
        self, request: pb.WatchSpansRequest, context: Ctx
    ) -> AsyncIterator[bytes]:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._reads.owned, identity, request.knowledge_id)
        if request.after_sequence < 0:
            raise InvalidArgument.field("after_sequence", "must not be negative")
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
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._reads.chunks,
            identity,
            request.knowledge_id,
            request.page_size,
            request.page_token,
        )
        chunks = fitted([convert.chunk(c) for c in listing.items], self._budget)
        return pb.ListChunksResponse(
            chunks=chunks,
            next_page_token=listing.next_page_token(len(chunks)),
            total=listing.total,
        )

    @unary
    async def CreateFromURL(
        self, request: pb.CreateFromURLRequest, context: Ctx
    ) -> pb.CreateFromURLResponse:
        identity = await self._deps.auth.identify(context)
        # Access first: a caller who may not use the knowledge base learns nothing of the URL;
        # then its type (an FAQ knowledge base takes no document, whatever the URL).
        kb = await asyncio.to_thread(
            self._deps.knowledge_bases.get_row, identity, request.knowledge_base_id
        )
        document_kb(kb)
        # The first line of the SSRF defence: a refused URL goes no further than the handler.
        await asyncio.to_thread(checked_import_url, request.url, self._settings)
        knowledge = await asyncio.to_thread(self._deps.ingest.create_from_url, identity, request)
        return pb.CreateFromURLResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def Reparse(self, request: pb.ReparseRequest, context: Ctx) -> pb.ReparseResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(self._deps.reparse.reparse, identity, request)
        return pb.ReparseResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def CancelParse(
        self, request: pb.CancelParseRequest, context: Ctx
    ) -> pb.CancelParseResponse:
        identity = await self._deps.auth.identify(context)
        cancellation = await asyncio.to_thread(self._deps.cancel.cancel, identity, request.id)
        self._deps.cancel.close_spans_later(cancellation)
        return pb.CancelParseResponse(knowledge=convert.knowledge(cancellation.knowledge))

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
        identity = await self._deps.auth.identify(context)
        mode = mode_of(request.mode)
        if mode is None and request.mode != pb.MOVE_MODE_UNSPECIFIED:
            raise InvalidArgument.field("mode", f"unknown move mode {request.mode}")
        accepted = await asyncio.to_thread(
            self._deps.knowledge_moves.move,
            identity,
            list(request.ids),
            request.target_knowledge_base_id,
            mode,
        )
        return pb.MoveKnowledgeResponse(job_id=accepted.job_id, mode=mode_value(accepted.mode))

    @unary
    async def GetMoveProgress(
        self, request: pb.GetMoveProgressRequest, context: Ctx
    ) -> pb.GetMoveProgressResponse:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.knowledge_moves.progress, identity, request.job_id)
        return pb.GetMoveProgressResponse(progress=move_progress(job))

    @streaming
    async def WatchMoveProgress(
        self, request: pb.WatchMoveProgressRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchMoveProgressResponse]:
        identity = await self._deps.auth.identify(context)
        moves = self._deps.knowledge_moves
        # Checked before the stream starts: another tenant's job is NOT_FOUND at once.
        job = await asyncio.to_thread(moves.progress, identity, request.job_id)

        async def read() -> pb.MoveProgress:
            return move_progress(await asyncio.to_thread(moves.progress, identity, job.id))

        def ended(progress: pb.MoveProgress) -> bool:
            return progress.status in (JOB_STATUS_COMPLETED, JOB_STATUS_FAILED)

        async for progress in watch_job(self._deps.subscriber, job.id, read, ended):
            yield pb.WatchMoveProgressResponse(progress=progress)

    @unary
    async def RegenerateSummary(
        self, request: pb.RegenerateSummaryRequest, context: Ctx
    ) -> pb.RegenerateSummaryResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(
            self._deps.summary_refresh.regenerate, identity, request.id
        )
        return pb.RegenerateSummaryResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def UpdateChunk(
        self, request: pb.UpdateChunkRequest, context: Ctx
    ) -> pb.UpdateChunkResponse:
        identity = await self._deps.auth.identify(context)
        chunk = await asyncio.to_thread(
            self._deps.chunk_edits.update_content, identity, request.chunk_id, request.content
        )
        return pb.UpdateChunkResponse(chunk=convert.chunk(chunk))

    @unary
    async def SetChunkEnabled(
        self, request: pb.SetChunkEnabledRequest, context: Ctx
    ) -> pb.SetChunkEnabledResponse:
        identity = await self._deps.auth.identify(context)
        chunk = await asyncio.to_thread(
            self._deps.chunk_edits.set_enabled, identity, request.chunk_id, request.enabled
        )
        return pb.SetChunkEnabledResponse(chunk=convert.chunk(chunk))

    @unary
    async def UpdateKnowledgeMetadata(
        self, request: pb.UpdateKnowledgeMetadataRequest, context: Ctx
    ) -> pb.UpdateKnowledgeMetadataResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(
            self._deps.knowledge_edits.update_metadata,
            identity,
            request.knowledge_id,
            dict(request.metadata),
        )
        return pb.UpdateKnowledgeMetadataResponse(knowledge=convert.knowledge(knowledge))

    @unary
    async def SetKnowledgeTags(
        self, request: pb.SetKnowledgeTagsRequest, context: Ctx
    ) -> pb.SetKnowledgeTagsResponse:
        identity = await self._deps.auth.identify(context)
        knowledge = await asyncio.to_thread(
            self._deps.knowledge_edits.set_tags,
            identity,
            request.knowledge_id,
            list(request.tag_ids),
        )
        return pb.SetKnowledgeTagsResponse(knowledge=convert.knowledge(knowledge))
