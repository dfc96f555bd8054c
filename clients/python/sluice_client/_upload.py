"""The frames of a CreateFromFile client stream: one header, then the file in pieces."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import BinaryIO

from sluice_client._proto.sluice import v1

FileSource = str | os.PathLike[str] | BinaryIO


def open_source(
    source: FileSource, file_name: str | None
) -> tuple[str, AbstractContextManager[BinaryIO]]:
    """(the name to upload under, a context that yields the open binary stream).

    A path is opened here, so a missing file fails before any RPC starts; a stream the
    caller passed in stays the caller's to close.
    """
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        return file_name or os.path.basename(path), open(path, "rb")
    if file_name:
        return file_name, nullcontext(source)
    stream_name = getattr(source, "name", None)
    if not isinstance(stream_name, str) or not stream_name:
        raise ValueError("file_name is required when uploading a stream without a name")
    return os.path.basename(stream_name), nullcontext(source)


def remaining_size(stream: BinaryIO) -> int | None:
    """The bytes left from the stream's position to its end, if it can seek (a file, a
    BytesIO); None for a pipe or socket. Sent in the header, so the server can tell a
    stream cut short from the whole file."""
    try:
        if not stream.seekable():
            return None
        start = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(start)
    except OSError:
        return None
    return max(end - start, 0)


def file_frames(
    header: v1.FileHeader, stream: BinaryIO, chunk_size: int
) -> Iterator[v1.CreateFromFileRequest]:
    """The header frame, then `chunk_size` pieces read lazily as gRPC sends them."""
    yield v1.CreateFromFileRequest(header=header)
    while piece := stream.read(chunk_size):
        yield v1.CreateFromFileRequest(data=piece)
