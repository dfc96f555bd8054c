"""Starting and stopping a Sluice process: lite (everything in one process) or the full-mode API.

Lite mode runs the API, the docreader (its own gRPC server on a local socket: even here
the pipeline reaches it only through its contract), an in-process executor running the
very same task handlers, SQLite, milvus-lite and a local storage folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

import grpc

from server.api.deps import ApiDeps
from server.api.key_revocations import follow_revocations
from server.api.server import start_api_server
from server.docreader.server import build_docreader_server
from storage.db.migrate import upgrade_to_head
from storage.events.base import EventSubscriber
from storage.events.memory_bus import InMemoryEventBus
from storage.events.redis_bus import RedisEventBus
from storage.queue.base import QueueName
from storage.queue.lite import LiteTaskQueue
from storage.queue.rq_queue import RQTaskQueue
from workers.context import WorkerContext, install_context
from workers.housekeeping.restart import recover_after_restart
from workers.housekeeping.runner import BackgroundHousekeeper
from workers.settings import Settings
from workers.wiring import build_context

log = logging.getLogger(__name__)
_MAX_UNIX_SOCKET_PATH = 100


@dataclass
class Runtime:
    settings: Settings
    ctx: WorkerContext
    deps: ApiDeps
    api: grpc.aio.Server
    port: int
    docreader: grpc.Server | None = None
    housekeeper: BackgroundHousekeeper | None = None
    revocations: asyncio.Task[None] | None = None

    async def stop(self, grace: float = 5.0) -> None:
        await self.api.stop(grace)
        if self.revocations is not None:
            self.revocations.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.revocations
        if self.housekeeper is not None:
            await asyncio.to_thread(self.housekeeper.stop)
        if self.docreader is not None:
            self.docreader.stop(grace).wait()
        await asyncio.to_thread(self.ctx.close)
        install_context(None)


def _prepare(settings: Settings) -> None:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    settings.storage_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.database_url)


def _docreader_address(settings: Settings) -> str:
    socket = settings.docreader_socket.resolve()
    if len(str(socket)) > _MAX_UNIX_SOCKET_PATH:
        return "127.0.0.1:0"
    with contextlib.suppress(FileNotFoundError):
        socket.unlink()
    return f"unix:{socket}"


async def start_lite(settings: Settings) -> Runtime:
    await asyncio.to_thread(_prepare, settings)
    address = _docreader_address(settings)
    docreader, port = build_docreader_server(
        address,
        max_workers=4,
        storage_base_dir=None,
        max_message_bytes=settings.max_message_bytes,
        memory_cap_mb=settings.docreader_memory_cap_mb,
        parse_timeout_s=settings.docreader_parse_timeout_s,
        max_input_mb=settings.docreader_max_input_mb,
    )
    docreader.start()
    target = address if address.startswith("unix:") else f"127.0.0.1:{port}"
    queue = LiteTaskQueue(workers_per_queue={QueueName.DEFAULT: settings.lite_default_workers})
    bus = InMemoryEventBus()
    ctx = await asyncio.to_thread(
        build_context, settings, queue=queue, publisher=bus, docreader_target=target
    )
    # The previous process's queue died with it: nothing in flight can still be queued.
    # Handlers of the tasks the recovery enqueues find this context.
    install_context(ctx)
    await asyncio.to_thread(recover_after_restart, ctx)
    runtime = await _start_api(settings, ctx, bus, docreader)
    if settings.housekeeping_enabled:
        runtime.housekeeper = BackgroundHousekeeper(ctx)
    return runtime


async def start_full_api(settings: Settings) -> Runtime:
    await asyncio.to_thread(_prepare, settings)
    bus = RedisEventBus(settings.redis_url, settings.key_prefix)
    ctx = await asyncio.to_thread(
        build_context,
        settings,
        queue=RQTaskQueue(settings.redis_url, key_prefix=settings.key_prefix),
        publisher=bus,
        docreader_target=settings.docreader_address,
    )
    runtime = await _start_api(settings, ctx, bus, None)
    # Keys are cached only while this feed is live (see server.api.auth).
    runtime.revocations = asyncio.create_task(follow_revocations(bus, runtime.deps.auth))
    return runtime


async def _start_api(
    settings: Settings, ctx: WorkerContext, bus: EventSubscriber, docreader: grpc.Server | None
) -> Runtime:
    await asyncio.to_thread(
        ctx.tenants.ensure_default_tenant, settings.default_tenant_id, "default"
    )
    install_context(ctx)
    deps = ApiDeps.build(ctx, bus)
    api, port = await start_api_server(deps, settings.api_address)
    log.info("sluice %s mode: API on port %d", settings.mode, port)
    return Runtime(settings, ctx, deps, api, port, docreader)
