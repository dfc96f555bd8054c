"""File storage connectivity in the API's gRPC health service.

Two kinds of health service name (``grpc.health.v1.Health/Check`` with ``service`` set):

- ``sluice.storage``: SERVING while every configured storage backend passes its check,
  NOT_SERVING as soon as one does not;
- ``sluice.storage.{backend_id}``: each backend on its own.

Each backend's ``check_connectivity`` runs right after the server starts and then every
``storage_health_interval_s`` until the server stops; until the first check ends the names
answer UNKNOWN. A local disk writes a probe file each time; S3 writes and deletes a probe
object at the first check and the first after a failure, and otherwise HEADs its buckets.
The overall ``""`` status and the sluice.v1 services stay SERVING: the API still answers
(reads, searches) while storage is down, so a liveness probe should not restart it for that.
"""

from __future__ import annotations

import asyncio
import logging

import grpc
from grpc_health.v1 import health, health_pb2

from storage.files.backend_scoped import BackendScopedFileService
from storage.files.base import StorageError

log = logging.getLogger(__name__)

STORAGE_SERVICE = "sluice.storage"
_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
# The monitors running in this process; asyncio keeps only weak references to tasks.
_MONITORS: set[asyncio.Task[None]] = set()


def storage_service_names(files: BackendScopedFileService) -> list[str]:
    return [STORAGE_SERVICE, *(f"{STORAGE_SERVICE}.{b}" for b in files.backend_ids)]


async def start_storage_health(
    server: grpc.aio.Server,
    servicer: health.aio.HealthServicer,
    files: BackendScopedFileService,
    interval_s: float,
) -> None:
    """Answer UNKNOWN for the storage names now, then keep them current while ``server``
    runs."""
    for name in storage_service_names(files):
        await servicer.set(name, health_pb2.HealthCheckResponse.UNKNOWN)
    task = asyncio.create_task(_monitor(server, servicer, files, interval_s))
    _MONITORS.add(task)
    task.add_done_callback(_MONITORS.discard)


async def _monitor(
    server: grpc.aio.Server,
    servicer: health.aio.HealthServicer,
    files: BackendScopedFileService,
    interval_s: float,
) -> None:
    stopped = asyncio.ensure_future(server.wait_for_termination())
    failing: dict[str, str] = {}
    try:
        while not stopped.done():
            await _refresh(servicer, files, failing)
            await asyncio.wait([stopped], timeout=interval_s)
    finally:
        stopped.cancel()


async def _refresh(
    servicer: health.aio.HealthServicer,
    files: BackendScopedFileService,
    failing: dict[str, str],
) -> None:
    """Check every backend once and publish the result; ``failing`` remembers the last
    errors, so a lasting outage is logged when it starts and when it ends, not each time."""
    try:
        results = await asyncio.to_thread(files.check_backends)
    except Exception as exc:  # a check must never end the monitor
        log.exception("storage health check failed")
        results = {b: StorageError(str(exc)) for b in files.backend_ids}
    for backend_id, error in results.items():
        if error is None:
            if failing.pop(backend_id, None) is not None:
                log.info("storage backend %s is reachable again", backend_id)
        elif failing.get(backend_id) != str(error):
            failing[backend_id] = str(error)
            log.warning("storage backend %s is failing: %s", backend_id, error)
        status = _SERVING if error is None else _NOT_SERVING
        await servicer.set(f"{STORAGE_SERVICE}.{backend_id}", status)
    overall = _NOT_SERVING if any(e is not None for e in results.values()) else _SERVING
    await servicer.set(STORAGE_SERVICE, overall)
