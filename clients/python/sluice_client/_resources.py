"""Writing a ReadResource stream out as it arrives: its meta frame, then its bytes."""

from __future__ import annotations

import os
from collections.abc import Iterable
from contextlib import suppress
from typing import BinaryIO

from sluice_client._proto.sluice import v1
from sluice_client._upload import FileSource
from sluice_client.errors import ProtocolError


def write_resource(
    frames: Iterable[v1.ReadResourceResponse], destination: FileSource
) -> v1.Resource:
    """Write the data frames to `destination` (a path, created or truncated, and removed
    again if the stream fails; or a binary stream the caller keeps) and return the meta
    frame. Raises ProtocolError if the frames break the contract (no meta frame first, or
    not as many bytes as it announced)."""
    if not isinstance(destination, str | os.PathLike):
        return _copy(frames, destination)
    path = os.fspath(destination)
    try:
        with open(path, "wb") as stream:
            return _copy(frames, stream)
    except BaseException:
        with suppress(OSError):  # nothing to remove if it could not even be opened
            os.remove(path)
        raise


def _copy(frames: Iterable[v1.ReadResourceResponse], stream: BinaryIO) -> v1.Resource:
    meta: v1.Resource | None = None
    received = 0
    for frame in frames:
        if meta is None:
            if frame.meta is None:
                raise ProtocolError("ReadResource did not start with its meta frame")
            meta = frame.meta
            continue
        if frame.data is None:
            raise ProtocolError("ReadResource sent a second meta frame")
        stream.write(frame.data)
        received += len(frame.data)
    if meta is None:
        raise ProtocolError("ReadResource ended without a meta frame")
    if received != meta.size:
        raise ProtocolError(f"ReadResource announced {meta.size} bytes and sent {received}")
    return meta
