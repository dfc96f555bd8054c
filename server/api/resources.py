"""sluice.v1.ResourceService: a knowledge's stored files, access grants, and reading a
resource by grant as a stream (the rules are in server.services.resources)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
from sluice.v1 import resource_pb2 as pb
from sluice.v1 import resource_pb2_grpc as pb_grpc

from server.api import convert
from server.api.deps import ApiDeps
from server.api.rpc import streaming, unary
from server.api.threads import close_after

Ctx = grpc.aio.ServicerContext[Any, Any]

# Each data frame: small enough that a slow reader holds little of the file in memory,
# large enough that framing costs nothing next to the bytes.
READ_FRAME_BYTES = 256 << 10


class ResourceServicer(pb_grpc.ResourceServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._service = deps.resources

    @unary
    async def ListResources(
        self, request: pb.ListResourcesRequest, context: Ctx
    ) -> pb.ListResourcesResponse:
        identity = await self._deps.auth.identify(context)
        resources = await asyncio.to_thread(
            self._service.list_for_knowledge, identity, request.knowledge_id
        )
        return pb.ListResourcesResponse(resources=[convert.resource(r) for r in resources])

    @unary
    async def CreateAccessGrant(
        self, request: pb.CreateAccessGrantRequest, context: Ctx
    ) -> pb.CreateAccessGrantResponse:
        identity = await self._deps.auth.identify(context)
        grant = await asyncio.to_thread(self._service.create_grant, identity, request)
        return pb.CreateAccessGrantResponse(
            token=grant.token,
            expires_at=convert.timestamp(grant.expires_at),
            resource=convert.resource(grant.resource),
        )

    @unary
    async def RevokeAccessGrant(
        self, request: pb.RevokeAccessGrantRequest, context: Ctx
    ) -> pb.RevokeAccessGrantResponse:
        identity = await self._deps.auth.identify(context)
        revoked = await asyncio.to_thread(self._service.revoke_grants, identity, request)
        return pb.RevokeAccessGrantResponse(revoked=revoked)

    @streaming
    async def ReadResource(
        self, request: pb.ReadResourceRequest, context: Ctx
    ) -> AsyncIterator[pb.ReadResourceResponse]:
        # The token is the credential here: no API key is asked for (see services.resources).
        opened = await asyncio.to_thread(self._service.open_grant, request.token)
        stream = await asyncio.to_thread(self._service.open_file, opened.resource)
        reading: asyncio.Task[bytes] | None = None
        try:
            # Opened before the meta frame, so a missing file fails the call before any frame.
            yield pb.ReadResourceResponse(meta=convert.resource(opened))
            # One frame read at a time, each sent before the next is read: the file is
            # never in memory whole, whatever its size.
            while True:
                # Shielded: a cancelled call must not lose track of a read still running.
                reading = asyncio.ensure_future(asyncio.to_thread(stream.read, READ_FRAME_BYTES))
                data = await asyncio.shield(reading)
                if not data:
                    break
                yield pb.ReadResourceResponse(data=data)
        finally:
            # Closed in a thread once the last read has returned (a close waits for the read,
            # up to the storage's read timeout), never on the event loop.
            await asyncio.shield(close_after(reading, stream.close))
