"""The DocReaderService servicer (sync gRPC API: parsing is CPU-bound, one thread per call).

Errors: a DocReaderError becomes its status (see ``errors``); anything else is logged and
becomes INTERNAL. Audio inputs are answered with the input bytes as ``audio_data`` /
``audio_chunk`` frames.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, NoReturn

import grpc
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from server.docreader.errors import DocReaderError, InvalidRequestError
from server.docreader.frames import read_result, result_frames
from server.docreader.parsers.base import ParsedDocument
from server.docreader.reader import DocumentReader
from server.docreader.sources import request_content

logger = logging.getLogger(__name__)

# Uploads stay in memory up to this size, then spill to a temporary file.
UPLOAD_SPOOL_MEMORY_BYTES = 8 << 20


class DocReaderServicer(docreader_pb2_grpc.DocReaderServiceServicer):
    def __init__(
        self,
        reader: DocumentReader,
        *,
        storage_base_dir: Path | None,
        max_message_bytes: int,
    ) -> None:
        self._reader = reader
        self._storage_base_dir = storage_base_dir
        self._max_message_bytes = max_message_bytes

    def Read(
        self, request: docreader_pb2.ReadRequest, context: grpc.ServicerContext
    ) -> docreader_pb2.ReadResponse:
        try:
            content = request_content(request, self._storage_base_dir)
            document = self._parse(request, content)
            return docreader_pb2.ReadResponse(
                result=read_result(document, content, self._max_message_bytes)
            )
        except Exception as err:
            _abort(context, err)

    def ReadStream(
        self, request: docreader_pb2.ReadStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[docreader_pb2.ReadStreamResponse]:
        try:
            content = request_content(request.request, self._storage_base_dir)
            document = self._parse(request.request, content)
            yield from result_frames(
                document, content, docreader_pb2.ReadStreamResponse, self._max_message_bytes
            )
        except Exception as err:
            _abort(context, err)

    def ReadUpload(
        self,
        request_iterator: Iterator[docreader_pb2.ReadUploadRequest],
        context: grpc.ServicerContext,
    ) -> Iterator[docreader_pb2.ReadUploadResponse]:
        try:
            with tempfile.SpooledTemporaryFile(max_size=UPLOAD_SPOOL_MEMORY_BYTES) as spool:
                header = _receive_upload(request_iterator, spool)
                spool.seek(0)
                content = spool.read()
            document = self._parse(header, content)
            yield from result_frames(
                document, content, docreader_pb2.ReadUploadResponse, self._max_message_bytes
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
                )
                for engine in self._reader.registry.engines()
            ]
        )

    def _parse(self, request: docreader_pb2.ReadRequest, content: bytes) -> ParsedDocument:
        return self._reader.read(
            content,
            file_name=request.file_name,
            file_type=request.file_type,
            engine=request.config.engine,
            engine_options=request.config.engine_options,
        )


def _receive_upload(
    frames: Iterator[docreader_pb2.ReadUploadRequest], spool: IO[bytes]
) -> docreader_pb2.ReadRequest:
    header: docreader_pb2.ReadRequest | None = None
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
            spool.write(frame.data)
    if header is None:
        raise InvalidRequestError("ReadUpload ended without a header frame")
    return header


def _abort(context: grpc.ServicerContext, err: Exception) -> NoReturn:
    if isinstance(err, DocReaderError):
        context.abort(err.status_code, str(err))
    if not context.is_active():
        # The client cancelled or timed out: there is nobody to report to.
        raise err
    logger.error("docreader call failed", exc_info=err)
    context.abort(grpc.StatusCode.INTERNAL, f"docreader failed: {type(err).__name__}: {err}")
