"""sluice.v1.SearchService."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import search_pb2 as pb
from sluice.v1 import search_pb2_grpc as pb_grpc

from server.api.deps import ApiDeps
from server.api.rpc import unary


class SearchServicer(pb_grpc.SearchServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps

    @unary
    async def Search(
        self, request: pb.SearchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SearchResponse:
        identity = await self._deps.auth.identify(context)
        results = await asyncio.to_thread(self._deps.search.search, identity, request)
        return pb.SearchResponse(results=results)
