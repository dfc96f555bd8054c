"""A spooled parse → protobuf: a whole ReadResult, or ReadStream/ReadUpload frames.

Frames: one ReadMeta (metadata, counts, detected type), the Markdown in ``markdown_chunk``
pieces, one frame per image, then the audio bytes in chunks. Each image is read from disk
only when its frame is sent, so a 500-page scanned PDF streams back in bounded memory. One
image bigger than the message limit fails the call with RESOURCE_EXHAUSTED saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import ResultTooLargeError
from server.docreader.parser_contract import ParsedImage
from server.docreader.sandbox.disk_sink import SpooledDocument

AUDIO_CHUNK_BYTES = 1 << 20
# Characters per Markdown frame: at most 4 UTF-8 bytes each, so a frame stays ≤ 1 MiB.
MARKDOWN_CHUNK_CHARS = 1 << 18

Frame = TypeVar("Frame", docreader_pb2.ReadStreamResponse, docreader_pb2.ReadUploadResponse)


def read_result(
    document: SpooledDocument, detected_type: str, audio: Path, max_message_bytes: int
) -> docreader_pb2.ReadResult:
    if document.markdown_bytes > max_message_bytes:
        _too_large(document.markdown_bytes, max_message_bytes, "the Markdown (use ReadStream)")
    # Sizes from disk first: nothing is loaded for a result that cannot be sent anyway.
    payload = document.markdown_bytes + sum(i.path.stat().st_size for i in document.images())
    if document.is_audio:
        payload += audio.stat().st_size
    if payload > max_message_bytes:
        _too_large(payload, max_message_bytes, "the result (use ReadStream)")
    result = docreader_pb2.ReadResult(
        markdown_content=document.markdown(),
        image_refs=[image_ref(image.read()) for image in document.images()],
        metadata=document.metadata,
        is_audio=document.is_audio,
        audio_data=audio.read_bytes() if document.is_audio else b"",
        detected_file_type=detected_type,
    )
    if result.ByteSize() > max_message_bytes:
        _too_large(result.ByteSize(), max_message_bytes, "the result (use ReadStream)")
    return result


def result_frames(
    document: SpooledDocument,
    detected_type: str,
    audio: Path,
    frame_type: type[Frame],
    max_message_bytes: int,
) -> Iterator[Frame]:
    yield frame_type(
        meta=docreader_pb2.ReadMeta(
            metadata=document.metadata,
            is_audio=document.is_audio,
            image_count=document.image_count,
            markdown_bytes=document.markdown_bytes,
            detected_file_type=detected_type,
        )
    )
    for piece in document.markdown_pieces(MARKDOWN_CHUNK_CHARS):
        yield frame_type(markdown_chunk=piece)
    for spooled in document.images():
        frame = frame_type(image=image_ref(spooled.read()))
        if frame.ByteSize() > max_message_bytes:
            _too_large(frame.ByteSize(), max_message_bytes, f"image {spooled.ref}")
        yield frame
    if document.is_audio:
        # Room for the frame's own tag and length under a tiny message limit.
        step = max(1, min(AUDIO_CHUNK_BYTES, max_message_bytes - 16))
        with open(audio, "rb") as stream:
            while chunk := stream.read(step):
                yield frame_type(audio_chunk=chunk)


def image_ref(image: ParsedImage) -> docreader_pb2.ImageRef:
    return docreader_pb2.ImageRef(
        ref=image.ref,
        data=image.data,
        mime_type=image.mime_type,
        width=image.width,
        height=image.height,
        is_original=image.is_original,
        page=image.page,
    )


def _too_large(size: int, limit: int, what: str) -> None:
    raise ResultTooLargeError(f"{what} is {size} bytes, over the {limit}-byte message limit")
