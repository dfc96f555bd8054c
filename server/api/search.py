"""sluice.v1.SearchService."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import search_pb2 as pb
from sluice.v1 import search_pb2_grpc as pb_grpc

from server.api import convert
from server.api.budget import fitted, response_budget
from server.api.deps import ApiDeps
from server.api.rpc import unary


class SearchServicer(pb_grpc.SearchServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._budget = response_budget(deps.settings.api.max_message_bytes)

    @unary
    async def Search(
        self, request: pb.SearchRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SearchResponse:
        identity = await self._deps.auth.identify(context)
        found = await asyncio.to_thread(self._deps.search.search, identity, request)
        # The best results that fit in one response.
        results = fitted([convert.search_result(f) for f in found], self._budget)
        return pb.SearchResponse(results=results)
