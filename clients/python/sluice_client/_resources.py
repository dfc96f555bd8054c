"""Writing a ReadResource stream out as it arrives: its meta frame, then its bytes."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from contextlib import suppress
from typing import BinaryIO

from sluice_client._proto.sluice import v1
from sluice_client._upload import FileSource
from sluice_client.errors import ProtocolError


def write_resource(
    frames: Iterable[v1.ReadResourceResponse], destination: FileSource
) -> v1.Resource:
    """Write the data frames to `destination` (a path, or a binary stream the caller keeps)
    and return the meta frame. A path is replaced only once the whole file has arrived: the
    bytes go to a temporary file beside it, renamed over it at the end, so a stream that
    fails (a refused token, a broken connection) leaves an existing file as it was. Raises
    ProtocolError if the frames break the contract (no meta frame first, or not as many
    bytes as it announced)."""
    if not isinstance(destination, str | os.PathLike):
        return _copy(frames, destination)
    path = os.fspath(destination)
    directory, name = os.path.split(path)
    # Same directory, so the rename cannot cross file systems; opened like `open(path, "wb")`
    # would (the umask decides its mode), and never over an existing file ("x").
    partial = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.part")
    try:
        with open(partial, "xb") as stream:
            meta = _copy(frames, stream)
        os.replace(partial, path)
    except BaseException:
        with suppress(OSError):  # nothing to remove if it could not even be created
            os.remove(partial)
        raise
    return meta


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
