"""ImportFAQFile's client stream: a header frame, then the file's bytes, received into a
private temporary file (never into memory whole), up to the API's upload limit. The file is
read only once the client half-closed the stream, and removed whatever happens: an upload
that did not finish leaves nothing behind."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from sluice.v1 import faq_pb2 as pb

from core.errors import InvalidArgument
from server.api.stream_frames import DataFrames, header_frame
from server.api.upload import client_half_closed
from server.services.faq_files.readers import FORMATS
from storage.files.keys import file_extension

_FORMATS = {
    pb.FAQ_FILE_FORMAT_CSV: "csv",
    pb.FAQ_FILE_FORMAT_JSON: "json",
    pb.FAQ_FILE_FORMAT_XLSX: "xlsx",
}


@dataclass(frozen=True)
class ReceivedFile:
    header: pb.ImportFAQFileHeader
    file_format: str
    path: Path


def file_format(header: pb.ImportFAQFileHeader) -> str:
    """The header's format, else the file name's extension (INVALID_ARGUMENT if neither
    names CSV, JSON or XLSX)."""
    if header.format:
        return _FORMATS[header.format]
    extension = file_extension(header.file_name.strip()).lstrip(".").lower()
    if extension in FORMATS:
        return extension
    raise InvalidArgument.field(
        "header.format",
        f"unspecified, and the file name {header.file_name!r} does not end in .csv, .json or .xlsx",
    )


async def first_header(
    frames: AsyncIterator[pb.ImportFAQFileRequest],
) -> pb.ImportFAQFileHeader:
    return (await header_frame(frames)).header


@asynccontextmanager
async def received_file(
    header: pb.ImportFAQFileHeader,
    frames: AsyncIterator[pb.ImportFAQFileRequest],
    context: grpc.aio.ServicerContext[Any, Any],
    *,
    max_bytes: int,
) -> AsyncIterator[ReceivedFile]:
    """The rest of the stream in a temporary file, deleted when the block ends."""
    fmt = file_format(header)
    with tempfile.TemporaryDirectory(prefix="sluice-faq-import-") as folder:
        path = Path(folder) / f"upload.{fmt}"
        data = DataFrames(frames, max_bytes)
        with path.open("wb") as sink:
            async for chunk in data:
                await asyncio.to_thread(sink.write, chunk)
        await client_half_closed(context, header.file_name, data.received)
        if data.received == 0:
            raise InvalidArgument.field("data", "empty file: no bytes arrived")
        yield ReceivedFile(header, fmt, path)
