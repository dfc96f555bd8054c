"""CreateFromFile's client stream: header frame, then bytes streamed to storage.

Each data frame is hashed and written as it arrives, so the server's memory does not grow
with the file; a refused or broken upload leaves nothing behind.

The commit point is explicit: the file is published (and the row written, the task queued)
only once the client has half-closed the stream, every frame has been written, and what
arrived matches the size and MD5 the header declared, if it declared them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc
from sluice.v1 import knowledge_pb2

from core.errors import DataLoss, InvalidArgument, ResourceExhausted
from server.api.stream_frames import DataFrames, header_frame
from server.api.threads import close_after
from server.services.identity import Identity
from server.services.ingest import IngestService
from server.services.tags import TaggedKnowledge
from storage.files.base import Upload

log = logging.getLogger(__name__)

_MD5_HEX = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class Declared:
    """The size and MD5 the header announced (None: not announced)."""

    size: int | None
    md5: str | None

    @classmethod
    def of(cls, header: knowledge_pb2.FileHeader, max_bytes: int) -> Declared:
        """Checked before any byte is stored: a malformed value is INVALID_ARGUMENT, a
        size over the limit RESOURCE_EXHAUSTED."""
        size = header.size if header.HasField("size") else None
        if size is not None and size < 0:
            raise InvalidArgument.field("header.size", "must not be negative")
        if size is not None and size > max_bytes:
            raise ResourceExhausted(
                "file_size", f"file is larger than the limit of {max_bytes} bytes"
            )
        md5 = header.md5.strip().lower() or None
        if md5 is not None and not _MD5_HEX.fullmatch(md5):
            raise InvalidArgument.field("header.md5", "must be 32 hexadecimal digits")
        return cls(size, md5)

    def check_running_size(self, received: int) -> None:
        """More bytes than announced: refused at once, not at the end."""
        if self.size is not None and received > self.size:
            raise self._size_mismatch(received, "at least ")

    def check_complete(self, upload: Upload) -> None:
        if self.size is not None and upload.size != self.size:
            raise self._size_mismatch(upload.size, "")
        if self.md5 is not None and upload.md5_hex != self.md5:
            raise DataLoss(
                "UPLOAD_MD5_MISMATCH",
                f"the header declared MD5 {self.md5} but the received bytes hash to "
                f"{upload.md5_hex}; nothing was kept",
                {"declared": self.md5, "received": upload.md5_hex},
            )

    def _size_mismatch(self, received: int, qualifier: str) -> Exception:
        return DataLoss(
            "UPLOAD_SIZE_MISMATCH",
            f"the header declared {self.size} bytes but {qualifier}{received} arrived; "
            "nothing was kept",
            {"declared": str(self.size), "received": str(received)},
        )


async def receive_upload(
    frames: AsyncIterator[knowledge_pb2.CreateFromFileRequest],
    context: grpc.aio.ServicerContext[Any, Any],
    *,
    identity: Identity,
    ingest: IngestService,
    max_bytes: int,
) -> TaggedKnowledge:
    first = await header_frame(frames)
    declared = Declared.of(first.header, max_bytes)
    plan = await asyncio.to_thread(ingest.plan_upload, identity, first.header)
    upload = await asyncio.to_thread(ingest.begin_upload, plan)
    data = DataFrames(frames, max_bytes)
    # Each frame is hashed and written (in a thread) while the next one is received: one
    # write at a time, so the file stays in order and at most two frames are in memory.
    # Shielded: a cancelled call must not forget a write its thread is still doing.
    writing: asyncio.Task[None] | None = None
    try:
        async for chunk in data:
            declared.check_running_size(data.received)
            if writing is not None:
                await asyncio.shield(writing)
            writing = asyncio.create_task(asyncio.to_thread(upload.write, chunk))
        if writing is not None:
            await asyncio.shield(writing)
        await client_half_closed(context, plan.file_name, data.received)
        declared.check_complete(upload)
        if upload.size == 0:
            raise InvalidArgument.field("data", "empty document: the file has no bytes")
    except BaseException:
        # Aborted once its last write has finished: the abort closes the file it is using.
        await asyncio.shield(close_after(writing, upload.abort))
        raise
    return await asyncio.to_thread(ingest.finish_upload, plan, upload)


async def client_half_closed(
    context: grpc.aio.ServicerContext[Any, Any], file_name: str, received: int
) -> None:
    """Return only if the stream ended because the client half-closed it.

    grpc.aio ends the request iterator in the same way for a half-close and for a call that
    was cancelled, passed its deadline, lost its connection or had a frame refused by gRPC
    itself (over the message size limit). In every case but the half-close, the call was
    already cancelled in gRPC's core when the iterator ended (that is why it ended), so
    sending the initial metadata now fails, or the cancellation reaches this task while it
    waits. Either way the upload is not the client's finished file.
    """
    try:
        await context.send_initial_metadata(())
    except Exception as exc:
        log.info(
            "upload of %r ended after %d bytes without the client finishing it; nothing kept (%s)",
            file_name,
            received,
            type(exc).__name__,
        )
        raise asyncio.CancelledError("the client did not finish the upload") from exc
