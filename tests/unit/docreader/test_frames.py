"""Result frames: meta first, one frame per image, audio in chunks of at most 1 MiB."""

from __future__ import annotations

import pytest
from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import ResultTooLargeError
from server.docreader.frames import AUDIO_CHUNK_BYTES, read_result, result_frames
from server.docreader.parsers.base import ParsedDocument, ParsedImage

LIMIT = 8 << 20


def test_frames_order_and_audio_chunks() -> None:
    images = [ParsedImage(f"image-{n}.png", bytes([n]) * 100, "image/png", 10, 20, n == 1, n)
              for n in (1, 2)]
    audio = bytes(range(256)) * (AUDIO_CHUNK_BYTES * 2 // 256 + 10)
    document = ParsedDocument("stub", images, {"k": "v"}, is_audio=True)
    frames = list(result_frames(document, audio, docreader_pb2.ReadUploadResponse, LIMIT))
    kinds = [f.WhichOneof("frame") for f in frames]
    assert kinds == ["meta", "image", "image", "audio_chunk", "audio_chunk", "audio_chunk"]
    meta = frames[0].meta
    assert (meta.markdown_content, dict(meta.metadata), meta.is_audio, meta.image_count) == (
        "stub", {"k": "v"}, True, 2
    )
    assert frames[1].image.ref == "image-1.png" and frames[1].image.is_original
    assert frames[2].image.page == 2 and frames[2].image.height == 20
    chunks = [f.audio_chunk for f in frames[3:]]
    assert all(len(c) <= AUDIO_CHUNK_BYTES for c in chunks)
    assert b"".join(chunks) == audio


def test_audio_bytes_are_sent_only_for_audio() -> None:
    document = ParsedDocument("text")
    frames = list(result_frames(document, b"input", docreader_pb2.ReadStreamResponse, LIMIT))
    assert [f.WhichOneof("frame") for f in frames] == ["meta"]
    assert read_result(document, b"input", LIMIT).audio_data == b""
    audio = ParsedDocument("stub", is_audio=True)
    assert read_result(audio, b"input", LIMIT).audio_data == b"input"


def test_oversized_frames_are_refused_with_their_size() -> None:
    too_long = r"the Markdown frame is 20\d\d bytes, over the 1000-byte message limit"
    with pytest.raises(ResultTooLargeError, match=too_long):
        list(result_frames(ParsedDocument("x" * 2000), b"", docreader_pb2.ReadStreamResponse,
                           1000))
    image = ParsedImage("image-1.png", b"\x00" * 5000, "image/png")
    with pytest.raises(ResultTooLargeError, match=r"image image-1\.png is"):
        list(result_frames(ParsedDocument("ok", [image]), b"",
                           docreader_pb2.ReadStreamResponse, 1000))
    with pytest.raises(ResultTooLargeError, match="use ReadStream"):
        read_result(ParsedDocument("x" * 2000), b"", 1000)
