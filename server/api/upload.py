"""CreateFromFile's client stream: header frame, then bytes streamed to storage.

Each data frame is hashed and written as it arrives, so the server's memory does not grow
with the file; a refused or broken upload leaves nothing behind.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from sluice.v1 import knowledge_pb2

from server.api.auth import Identity
from server.api.errors import invalid_argument, resource_exhausted
from server.api.threads import close_after
from server.services.ingest import IngestService
from storage.files.backend_scoped import BackendScopedFileService


async def receive_upload(
    frames: AsyncIterator[knowledge_pb2.CreateFromFileRequest],
    *,
    identity: Identity,
    ingest: IngestService,
    files: BackendScopedFileService,
    max_bytes: int,
) -> knowledge_pb2.Knowledge:
    first = await anext(frames, None)
    if first is None or first.WhichOneof("frame") != "header":
        raise invalid_argument("frame", "the first frame must be a header")
    plan = await asyncio.to_thread(ingest.plan_upload, identity, first.header)
    # Stored on the knowledge base's own backend instance when it is bound to one.
    upload = await asyncio.to_thread(
        files.for_backend(plan.storage_backend_id).begin_upload,
        plan.tenant_id,
        plan.knowledge_id,
        plan.file_name,
    )
    received = 0
    # Each frame is hashed and written (in a thread) while the next one is received: one
    # write at a time, so the file stays in order and at most two frames are in memory.
    # Shielded: a cancelled call must not forget a write its thread is still doing.
    writing: asyncio.Task[None] | None = None
    try:
        async for frame in frames:
            if frame.WhichOneof("frame") != "data":
                raise invalid_argument("frame", "only data frames may follow the header")
            received += len(frame.data)
            if received > max_bytes:
                raise resource_exhausted(
                    "file_size", f"file is larger than the limit of {max_bytes} bytes"
                )
            if writing is not None:
                await asyncio.shield(writing)
            writing = asyncio.create_task(asyncio.to_thread(upload.write, frame.data))
        if writing is not None:
            await asyncio.shield(writing)
    except BaseException:
        # Aborted once its last write has finished: the abort closes the file it is using.
        await asyncio.shield(close_after(writing, upload.abort))
        raise
    return await asyncio.to_thread(ingest.finish_upload, plan, upload)
