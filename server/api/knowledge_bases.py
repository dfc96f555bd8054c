"""sluice.v1.KnowledgeBaseService."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import knowledge_base_pb2 as pb
from sluice.v1 import knowledge_base_pb2_grpc as pb_grpc

from server.api import convert
from server.api.budget import fitted, response_budget
from server.api.clone_progress import clone_progress, ended
from server.api.deps import ApiDeps
from server.api.rpc import streaming, unary
from server.services.job_watch import watch_job

Ctx = grpc.aio.ServicerContext[Any, Any]


class KnowledgeBaseServicer(pb_grpc.KnowledgeBaseServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._service = deps.knowledge_bases
        self._budget = response_budget(deps.settings.api.max_message_bytes)

    @unary
    async def CreateKnowledgeBase(
        self, request: pb.CreateKnowledgeBaseRequest, context: Ctx
    ) -> pb.CreateKnowledgeBaseResponse:
        identity = await self._deps.auth.identify(context)
        kb = await asyncio.to_thread(self._service.create, identity, request)
        return pb.CreateKnowledgeBaseResponse(knowledge_base=convert.knowledge_base(kb))

    @unary
    async def GetKnowledgeBase(
        self, request: pb.GetKnowledgeBaseRequest, context: Ctx
    ) -> pb.GetKnowledgeBaseResponse:
        identity = await self._deps.auth.identify(context)
        kb = await asyncio.to_thread(self._service.get, identity, request.id)
        return pb.GetKnowledgeBaseResponse(knowledge_base=convert.knowledge_base(kb))

    @unary
    async def ListKnowledgeBases(
        self, request: pb.ListKnowledgeBasesRequest, context: Ctx
    ) -> pb.ListKnowledgeBasesResponse:
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._service.list, identity, request.page_size, request.page_token
        )
        items = fitted([convert.knowledge_base(kb) for kb in listing.items], self._budget)
        return pb.ListKnowledgeBasesResponse(
            knowledge_bases=items, next_page_token=listing.next_page_token(len(items))
        )

    @unary
    async def UpdateKnowledgeBase(
        self, request: pb.UpdateKnowledgeBaseRequest, context: Ctx
    ) -> pb.UpdateKnowledgeBaseResponse:
        identity = await self._deps.auth.identify(context)
        kb = await asyncio.to_thread(self._service.update, identity, request)
        return pb.UpdateKnowledgeBaseResponse(knowledge_base=convert.knowledge_base(kb))

    @unary
    async def DeleteKnowledgeBase(
        self, request: pb.DeleteKnowledgeBaseRequest, context: Ctx
    ) -> pb.DeleteKnowledgeBaseResponse:
        identity = await self._deps.auth.identify(context)
        await asyncio.to_thread(self._service.delete, identity, request.id)
        return pb.DeleteKnowledgeBaseResponse()

    @unary
    async def GenerateKnowledgeBaseProfile(
        self, request: pb.GenerateKnowledgeBaseProfileRequest, context: Ctx
    ) -> pb.GenerateKnowledgeBaseProfileResponse:
        identity = await self._deps.auth.identify(context)
        job_id = await asyncio.to_thread(
            self._deps.kb_profiles.generate, identity, request.knowledge_base_id
        )
        return pb.GenerateKnowledgeBaseProfileResponse(job_id=job_id)

    @unary
    async def CloneKnowledgeBase(
        self, request: pb.CloneKnowledgeBaseRequest, context: Ctx
    ) -> pb.CloneKnowledgeBaseResponse:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.kb_clones.start, identity, request)
        return pb.CloneKnowledgeBaseResponse(job_id=job.id, target_id=job.target_knowledge_base_id)

    @unary
    async def GetCloneProgress(
        self, request: pb.GetCloneProgressRequest, context: Ctx
    ) -> pb.GetCloneProgressResponse:
        identity = await self._deps.auth.identify(context)
        job = await asyncio.to_thread(self._deps.kb_clones.progress, identity, request.job_id)
        return pb.GetCloneProgressResponse(progress=clone_progress(job))

    @streaming
    async def WatchCloneProgress(
        self, request: pb.WatchCloneProgressRequest, context: Ctx
    ) -> AsyncIterator[pb.WatchCloneProgressResponse]:
        identity = await self._deps.auth.identify(context)
        clones = self._deps.kb_clones

        async def read() -> pb.CloneProgress:
            job = await asyncio.to_thread(clones.progress, identity, request.job_id)
            return clone_progress(job)

        await read()  # NOT_FOUND before the stream starts
        async for progress in watch_job(self._deps.subscriber, request.job_id, read, ended):
            yield pb.WatchCloneProgressResponse(progress=progress)
