"""The DocReaderService servicer (sync gRPC API; each call's parse runs in a sandboxed child).

Every read gets a private work directory (the input, the child's scratch space, the spooled
result) that is removed when the call ends. A ReadUpload is spooled to disk only up to
``max_input_bytes``: the frame that would pass it ends the call with RESOURCE_EXHAUSTED,
nothing more is read, and the partial spool goes with the work directory.

Errors: a DocReaderError becomes its status (see ``errors``); anything else is logged and
becomes INTERNAL.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, NoReturn

import grpc
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from core.public_text import without_temp_paths
from server.docreader.errors import DocReaderError, InputTooLargeError, InvalidRequestError
from server.docreader.frames import read_result, result_frames
from server.docreader.ocr import installed_languages
from server.docreader.reader import DocumentReader, ReadSettings
from server.docreader.sandbox.runner import ParseResult
from server.docreader.sources import request_source

logger = logging.getLogger(__name__)


class DocReaderServicer(docreader_pb2_grpc.DocReaderServiceServicer):
    def __init__(
        self,
        reader: DocumentReader,
        *,
        storage_base_dir: Path | None,
        max_message_bytes: int,
        max_input_bytes: int | None = None,
        work_root: Path | None = None,
    ) -> None:
        self._reader = reader
        self._storage_base_dir = storage_base_dir
        self._max_message_bytes = max_message_bytes
        self._max_input_bytes = max_input_bytes  # None: no cap of its own
        self._work_root = work_root

    def Read(
        self, request: docreader_pb2.ReadRequest, context: grpc.ServicerContext
    ) -> docreader_pb2.ReadResponse:
        try:
            with self._work_dir() as work:
                source = request_source(request, self._storage_base_dir, work)
                output = self._parse(request, source, work, context)
                return docreader_pb2.ReadResponse(
                    result=read_result(
                        output.document, output.detected_type, source, self._max_message_bytes
                    )
                )
        except Exception as err:
            _abort(context, err)

    def ReadStream(
        self, request: docreader_pb2.ReadStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[docreader_pb2.ReadStreamResponse]:
        try:
            with self._work_dir() as work:
                source = request_source(request.request, self._storage_base_dir, work)
                output = self._parse(request.request, source, work, context)
                yield from result_frames(
                    output.document,
                    output.detected_type,
                    source,
                    docreader_pb2.ReadStreamResponse,
                    self._max_message_bytes,
                )
        except Exception as err:
            _abort(context, err)

    def ReadUpload(
        self,
        request_iterator: Iterator[docreader_pb2.ReadUploadRequest],
        context: grpc.ServicerContext,
    ) -> Iterator[docreader_pb2.ReadUploadResponse]:
        try:
            with self._work_dir() as work:
                source = work / "upload"
                with open(source, "wb") as spool:
                    header = _receive_upload(request_iterator, spool, self._max_input_bytes)
                output = self._parse(header, source, work, context)
                yield from result_frames(
                    output.document,
                    output.detected_type,
                    source,
                    docreader_pb2.ReadUploadResponse,
                    self._max_message_bytes,
                )
        except Exception as err:
            _abort(context, err)

    def ListEngines(
        self, request: docreader_pb2.ListEnginesRequest, context: grpc.ServicerContext
    ) -> docreader_pb2.ListEnginesResponse:
        return docreader_pb2.ListEnginesResponse(
            engines=[
                docreader_pb2.Engine(
                    name=engine.name,
                    description=engine.description,
                    file_types=engine.file_types,
                    available=engine.available,
                    unavailable_reason=engine.unavailable_reason,
                    unavailable_file_types=engine.unavailable_file_types,
                    max_input_bytes=engine.max_input_bytes(
                        self._reader.limits, self._max_input_bytes
                    ),
                )
                for engine in self._reader.registry.engines()
            ],
            ocr_languages=installed_languages(),
        )

    @contextmanager
    def _work_dir(self) -> Iterator[Path]:
        path = Path(tempfile.mkdtemp(prefix="sluice-read-", dir=self._work_root))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def _parse(
        self,
        request: docreader_pb2.ReadRequest,
        source: Path,
        work: Path,
        context: grpc.ServicerContext,
    ) -> ParseResult:
        settings = ReadSettings(
            file_name=request.file_name,
            file_type=request.file_type,
            engine=request.config.engine,
            engine_options=dict(request.config.engine_options),
            enable_ocr=_flag(request.config, "enable_ocr"),
            first_row_header=_flag(request.config, "first_row_header"),
            ocr_languages=tuple(request.config.ocr_languages),
        )
        return self._reader.read(source, settings, work, lambda: not context.is_active())


def _flag(config: docreader_pb2.ReadConfig, name: str) -> bool:
    """An optional ReadConfig switch: unset means on."""
    return bool(getattr(config, name)) if config.HasField(name) else True


def _receive_upload(
    frames: Iterator[docreader_pb2.ReadUploadRequest], spool: IO[bytes], max_bytes: int | None
) -> docreader_pb2.ReadRequest:
    header: docreader_pb2.ReadRequest | None = None
    received = 0
    for frame in frames:
        kind = frame.WhichOneof("frame")
        if kind == "header":
            if header is not None:
                raise InvalidRequestError("ReadUpload got a second header frame")
            if frame.header.WhichOneof("source") is not None:
                raise InvalidRequestError(
                    "the ReadUpload header must not carry a source; send the bytes as data frames"
                )
            header = frame.header
        elif kind == "data":
            if header is None:
                raise InvalidRequestError("ReadUpload must start with a header frame")
            received += len(frame.data)
            if max_bytes is not None and received > max_bytes:
                # Raising stops the iteration: no further frame is read from the client.
                raise InputTooLargeError(
                    f"the upload exceeds the docreader's input limit of {max_bytes >> 20} MiB "
                    f"({max_bytes} bytes; --max-input-mb, lite mode: "
                    "SLUICE_DOCREADER_MAX_INPUT_MB)"
                )
            spool.write(frame.data)
    if header is None:
        raise InvalidRequestError("ReadUpload ended without a header frame")
    return header


def _abort(context: grpc.ServicerContext, err: Exception) -> NoReturn:
    if isinstance(err, DocReaderError):
        context.abort(err.status_code, without_temp_paths(str(err)))
    if not context.is_active():
        # The client cancelled or timed out: there is nobody to report to.
        raise err
    logger.error("docreader call failed", exc_info=err)
    context.abort(
        grpc.StatusCode.INTERNAL,
        without_temp_paths(f"docreader failed: {type(err).__name__}: {err}"),
    )
