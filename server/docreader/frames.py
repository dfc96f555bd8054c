"""ParsedDocument → protobuf: a whole ReadResult, or ReadStream/ReadUpload frames.

Frames: one ReadMeta (Markdown, metadata, image count), one frame per image, then the audio
bytes in chunks of at most 1 MiB. The Markdown and each image must each fit in one message;
a frame over the limit fails the call with RESOURCE_EXHAUSTED and a message that says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import ResultTooLargeError
from server.docreader.parsers.base import ParsedDocument, ParsedImage

AUDIO_CHUNK_BYTES = 1 << 20

Frame = TypeVar("Frame", docreader_pb2.ReadStreamResponse, docreader_pb2.ReadUploadResponse)


def read_result(
    document: ParsedDocument, audio_data: bytes, max_message_bytes: int
) -> docreader_pb2.ReadResult:
    result = docreader_pb2.ReadResult(
        markdown_content=document.markdown,
        image_refs=[image_ref(image) for image in document.images],
        metadata=document.metadata,
        is_audio=document.is_audio,
        audio_data=audio_data if document.is_audio else b"",
    )
    _check_size(result.ByteSize(), max_message_bytes, "the result (use ReadStream)")
    return result


def result_frames(
    document: ParsedDocument,
    audio_data: bytes,
    frame_type: type[Frame],
    max_message_bytes: int,
) -> Iterator[Frame]:
    meta = frame_type(
        meta=docreader_pb2.ReadMeta(
            markdown_content=document.markdown,
            metadata=document.metadata,
            is_audio=document.is_audio,
            image_count=len(document.images),
        )
    )
    _check_size(meta.ByteSize(), max_message_bytes, "the Markdown frame")
    yield meta
    for image in document.images:
        frame = frame_type(image=image_ref(image))
        _check_size(frame.ByteSize(), max_message_bytes, f"image {image.ref}")
        yield frame
    if document.is_audio:
        # Room for the frame's own tag and length under a tiny message limit.
        step = max(1, min(AUDIO_CHUNK_BYTES, max_message_bytes - 16))
        for offset in range(0, len(audio_data), step):
            yield frame_type(audio_chunk=audio_data[offset : offset + step])


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


def _check_size(size: int, limit: int, what: str) -> None:
    if size > limit:
        raise ResultTooLargeError(
            f"{what} is {size} bytes, over the {limit}-byte message limit"
        )
