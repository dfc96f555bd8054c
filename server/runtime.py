"""Starting and stopping a Sluice process: lite (everything in one process) or the full-mode API.

``start_lite`` and ``start_full_api`` are the composition roots of those two processes: each
builds every part from the one Settings it is given. Lite mode runs the API, the docreader
(its own gRPC server on a local socket: even here the pipeline reaches it only through its
contract), an in-process executor running the very same task handlers (the context is
installed for them), SQLite, milvus-lite and a local storage folder. The full-mode API runs
no task handler: it enqueues onto Redis for the workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from dataclasses import dataclass
from pathlib import Path

import grpc

from server.api.deps import ApiDeps
from server.api.key_revocations import follow_revocations
from server.api.server import start_api_server
from server.binding import BindError
from server.docreader.server import build_docreader_server
from storage.db.migrate import upgrade_to_head
from storage.events.base import EventSubscriber
from storage.events.memory_bus import InMemoryEventBus
from storage.events.redis_bus import RedisEventBus
from storage.queue.lite import LiteTaskQueue
from storage.queue.rq_queue import RQTaskQueue
from workers.context import ProcessContext, install_context
from workers.housekeeping.restart import recover_after_restart
from workers.housekeeping.runner import BackgroundHousekeeper
from workers.net.service_ports import add_service_port, discard_service_port
from workers.observability.metrics_collectors import (
    DocumentStatusCollector,
    QueueCollector,
    rq_queue_reader,
)
from workers.observability.metrics_endpoint import MetricsEndpoint, serve_metrics
from workers.settings import Settings
from workers.wiring import build_context, build_process_context

log = logging.getLogger(__name__)
_MAX_UNIX_SOCKET_PATH = 100


@dataclass
class Runtime:
    settings: Settings
    ctx: ProcessContext
    deps: ApiDeps
    api: grpc.aio.Server
    port: int
    docreader: grpc.Server | None = None
    housekeeper: BackgroundHousekeeper | None = None
    revocations: asyncio.Task[None] | None = None
    metrics: MetricsEndpoint | None = None

    async def stop(self, grace: float = 5.0) -> None:
        await self.api.stop(grace)
        discard_service_port(self.port)  # no longer ours: whoever binds it next may be fetched
        if self.metrics is not None:
            await asyncio.to_thread(self.metrics.stop)
            discard_service_port(self.metrics.port)
        if self.revocations is not None:
            self.revocations.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.revocations
        if self.housekeeper is not None:
            await asyncio.to_thread(self.housekeeper.stop)
        # Running rounds hand themselves back (within the shutdown grace) while the
        # docreader and the index they use are still up.
        await asyncio.to_thread(self.ctx.queue.close)
        if self.docreader is not None:
            self.docreader.stop(grace).wait()
        await asyncio.to_thread(self.ctx.close)
        install_context(None)


def _prepare(settings: Settings) -> None:
    # Full mode keeps nothing in the data directory (a local storage backend creates its
    # own folder): it must not appear, empty, wherever the API was started.
    if settings.mode == "lite":
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        settings.storage.storage_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.storage.database_url)


def _docreader_address(settings: Settings) -> str:
    path = settings.docreader_socket.resolve()
    if len(str(path)) > _MAX_UNIX_SOCKET_PATH:
        return "127.0.0.1:0"
    # A socket left by a process that died is replaced; one that answers belongs to a lite
    # process still running on this data directory, whose docreader unlinking would cut off.
    if _is_served(path):
        raise BindError(
            f"cannot listen on unix:{path}: another Sluice process is running on "
            f"{settings.data_dir}"
        )
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return f"unix:{path}"


def _is_served(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


async def start_lite(settings: Settings) -> Runtime:
    await asyncio.to_thread(_prepare, settings)
    address = _docreader_address(settings)
    docreader, port = build_docreader_server(
        address,
        max_workers=4,
        storage_base_dir=None,
        max_message_bytes=settings.api.max_message_bytes,
        memory_cap_mb=settings.docreader.docreader_memory_cap_mb,
        parse_timeout_s=settings.docreader.docreader_parse_timeout_s,
        max_input_mb=settings.docreader.docreader_max_input_mb,
    )
    docreader.start()
    target = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    if not address.startswith("unix:"):
        add_service_port(port)  # a data dir too deep for a socket path: a loopback port
    queue = LiteTaskQueue(
        pools=settings.queue.pools(),
        shutdown_grace_s=settings.queue.worker_shutdown_grace_s,
    )
    bus = InMemoryEventBus()
    ctx = await asyncio.to_thread(
        build_context, settings, queue=queue, publisher=bus, docreader_target=target
    )
    # The previous process's queue died with it: nothing in flight can still be queued.
    # Handlers of the tasks the recovery enqueues find this context.
    install_context(ctx)
    try:
        await asyncio.to_thread(recover_after_restart, ctx)
        runtime = await _start_api(settings, ctx, bus, docreader)
    except BaseException:
        # A taken API port, say: stop what has started, or its threads keep the process up.
        docreader.stop(None).wait()
        await asyncio.to_thread(ctx.close)
        install_context(None)
        raise
    if settings.housekeeping.housekeeping_enabled:
        runtime.housekeeper = BackgroundHousekeeper(ctx)
    return runtime


async def start_full_api(settings: Settings) -> Runtime:
    await asyncio.to_thread(_prepare, settings)
    bus = RedisEventBus(settings.queue.redis_url, settings.queue.key_prefix)
    # No docreader client: this process reads no document, the workers do.
    ctx = await asyncio.to_thread(
        build_process_context,
        settings,
        queue=RQTaskQueue(
            settings.queue.redis_url,
            key_prefix=settings.queue.key_prefix,
            heartbeat_ttl_s=settings.queue.task_heartbeat_ttl_s,
        ),
        publisher=bus,
    )
    try:
        runtime = await _start_api(settings, ctx, bus, None)
    except BaseException:
        await asyncio.to_thread(ctx.close)
        raise
    # Keys are cached only while this feed is live (see server.api.auth).
    runtime.revocations = asyncio.create_task(follow_revocations(bus, runtime.deps.auth))
    return runtime


async def _start_api(
    settings: Settings, ctx: ProcessContext, bus: EventSubscriber, docreader: grpc.Server | None
) -> Runtime:
    await asyncio.to_thread(
        ctx.tenants.ensure_default_tenant, settings.default_tenant_id, "default"
    )
    deps = ApiDeps.build(ctx, bus)
    metrics = _serve_metrics(settings, ctx)
    try:
        api, port = await start_api_server(deps, settings.api.api_address)
    except BaseException:
        if metrics is not None:
            metrics.stop()
            discard_service_port(metrics.port)
        raise
    # Bound to ":0", the API's port is known only now: the SSRF policy must block it too.
    add_service_port(port)
    log.info("sluice %s mode: API on port %d", settings.mode, port)
    return Runtime(settings, ctx, deps, api, port, docreader, metrics=metrics)


def _serve_metrics(settings: Settings, ctx: ProcessContext) -> MetricsEndpoint | None:
    """The process's /metrics when SLUICE_METRICS_PORT is set: in lite mode everything,
    the task threads' work included; in full mode the API's and the deployment's state."""
    config = settings.metrics
    if not config.metrics_port:
        return None
    queue = ctx.queue
    read = (
        queue.counts
        if isinstance(queue, LiteTaskQueue)
        else rq_queue_reader(settings.queue.redis_url, settings.queue.key_prefix)
    )
    collectors = (QueueCollector(read), DocumentStatusCollector(ctx.db))
    endpoint = serve_metrics(config.metrics_host, config.metrics_port, collectors)
    add_service_port(endpoint.port)
    log.info("sluice %s mode: /metrics on port %d", settings.mode, endpoint.port)
    return endpoint
