"""sluice.v1.TagService."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import tag_pb2 as pb
from sluice.v1 import tag_pb2_grpc as pb_grpc

from server.api import convert
from server.api.budget import fitted, response_budget
from server.api.deps import ApiDeps
from server.api.rpc import unary

Ctx = grpc.aio.ServicerContext[Any, Any]


class TagServicer(pb_grpc.TagServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._service = deps.tags
        self._budget = response_budget(deps.settings.api.max_message_bytes)

    @unary
    async def CreateTag(self, request: pb.CreateTagRequest, context: Ctx) -> pb.CreateTagResponse:
        identity = await self._deps.auth.identify(context)
        tag = await asyncio.to_thread(
            self._service.create, identity, request.knowledge_base_id, request.name, request.color
        )
        return pb.CreateTagResponse(tag=convert.tag(tag))

    @unary
    async def ListTags(self, request: pb.ListTagsRequest, context: Ctx) -> pb.ListTagsResponse:
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._service.list,
            identity,
            request.knowledge_base_id,
            request.page_size,
            request.page_token,
        )
        tags = fitted([convert.tag(t) for t in listing.items], self._budget)
        return pb.ListTagsResponse(
            tags=tags, next_page_token=listing.next_page_token(len(tags)), total=listing.total
        )

    @unary
    async def RenameTag(self, request: pb.RenameTagRequest, context: Ctx) -> pb.RenameTagResponse:
        identity = await self._deps.auth.identify(context)
        tag = await asyncio.to_thread(self._service.rename, identity, request.tag_id, request.name)
        return pb.RenameTagResponse(tag=convert.tag(tag))

    @unary
    async def DeleteTag(self, request: pb.DeleteTagRequest, context: Ctx) -> pb.DeleteTagResponse:
        identity = await self._deps.auth.identify(context)
        unlinked = await asyncio.to_thread(self._service.delete, identity, request.tag_id)
        return pb.DeleteTagResponse(unlinked=unlinked)
