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
from server.services.ingest import IngestService
from storage.files.base import FileService


async def receive_upload(
    frames: AsyncIterator[knowledge_pb2.CreateFromFileRequest],
    *,
    identity: Identity,
    ingest: IngestService,
    files: FileService,
    max_bytes: int,
) -> knowledge_pb2.Knowledge:
    first = await anext(frames, None)
    if first is None or first.WhichOneof("frame") != "header":
        raise invalid_argument("frame", "the first frame must be a header")
    plan = await asyncio.to_thread(ingest.plan_upload, identity, first.header)
    upload = await asyncio.to_thread(
        files.begin_upload, plan.tenant_id, plan.knowledge_id, plan.file_name
    )
    try:
        async for frame in frames:
            if frame.WhichOneof("frame") != "data":
                raise invalid_argument("frame", "only data frames may follow the header")
            if upload.size + len(frame.data) > max_bytes:
                raise resource_exhausted(
                    "file_size", f"file is larger than the limit of {max_bytes} bytes"
                )
            await asyncio.to_thread(upload.write, frame.data)
    except BaseException:
        await asyncio.shield(asyncio.to_thread(upload.abort))
        raise
    return await asyncio.to_thread(ingest.finish_upload, plan, upload)
