"""grpc.health.v1 servicers that also answer List.

grpcio-health-checking 1.85 generates the List RPC from the health proto but its
HealthServicer classes leave it unimplemented (UNIMPLEMENTED): these subclasses list the
statuses the servicer was given. They read the reference servicer's own status table, so a
graceful shutdown's NOT_SERVING shows up in List as it does in Check.
"""

from __future__ import annotations

from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2


def _snapshot(statuses: dict[str, Any]) -> health_pb2.HealthListResponse:
    return health_pb2.HealthListResponse(
        statuses={
            name: health_pb2.HealthCheckResponse(status=status)
            for name, status in dict(statuses).items()
        }
    )


class ListingHealthServicer(health.HealthServicer):  # type: ignore[misc]
    """The thread-based servicer, for grpc.Server (the docreader)."""

    def List(
        self, request: health_pb2.HealthListRequest, context: grpc.ServicerContext
    ) -> health_pb2.HealthListResponse:
        with self._lock:
            return _snapshot(self._server_status)


class AsyncListingHealthServicer(health.aio.HealthServicer):  # type: ignore[misc]
    """The asyncio servicer, for grpc.aio.Server (the API)."""

    async def List(
        self, request: health_pb2.HealthListRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> health_pb2.HealthListResponse:
        return _snapshot(self._server_status)
