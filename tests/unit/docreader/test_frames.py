"""Result frames: meta first, the Markdown in pieces, one frame per image, audio in chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
from sluice.docreader.v1 import docreader_pb2

from server.docreader.errors import ResultTooLargeError
from server.docreader.frames import (
    AUDIO_CHUNK_BYTES,
    MARKDOWN_CHUNK_CHARS,
    read_result,
    result_frames,
)
from server.docreader.parser_contract import ParsedImage
from server.docreader.sandbox.disk_sink import DiskSink, SpooledDocument

LIMIT = 8 << 20


def _spool(
    tmp_path: Path,
    markdown: str,
    images: list[ParsedImage] = (),  # type: ignore[assignment]
    *,
    audio: bool = False,
    metadata: dict[str, str] | None = None,
) -> SpooledDocument:
    out = tmp_path / "out"
    out.mkdir()
    with DiskSink(out) as sink:
        sink.write(markdown)
        for image in images:
            sink.add_image(image)
        for key, value in (metadata or {}).items():
            sink.set_metadata(key, value)
        if audio:
            sink.mark_audio()
    return SpooledDocument.load(out)


def test_frames_order_markdown_pieces_and_audio_chunks(tmp_path: Path) -> None:
    images = [
        ParsedImage(f"image-{n}.png", bytes([n]) * 100, "image/png", 10, 20, n == 1, n)
        for n in (1, 2)
    ]
    # Multi-byte characters across the piece boundary must survive the split.
    markdown = "é" * (MARKDOWN_CHUNK_CHARS + 10) + "end"
    audio = tmp_path / "input"
    audio.write_bytes(bytes(range(256)) * (AUDIO_CHUNK_BYTES * 2 // 256 + 10))
    document = _spool(tmp_path, markdown, images, audio=True, metadata={"k": "v"})
    frames = list(result_frames(document, "wav", audio, docreader_pb2.ReadUploadResponse, LIMIT))
    kinds = [f.WhichOneof("frame") for f in frames]
    assert kinds == [
        "meta",
        "markdown_chunk",
        "markdown_chunk",
        "image",
        "image",
        "audio_chunk",
        "audio_chunk",
        "audio_chunk",
    ]
    meta = frames[0].meta
    assert (dict(meta.metadata), meta.is_audio, meta.image_count, meta.detected_file_type) == (
        {"k": "v"},
        True,
        2,
        "wav",
    )
    assert meta.markdown_bytes == len(markdown.encode())
    assert frames[1].markdown_chunk + frames[2].markdown_chunk == markdown
    assert frames[3].image.ref == "image-1.png" and frames[3].image.is_original
    assert frames[4].image.page == 2 and frames[4].image.height == 20
    chunks = [f.audio_chunk for f in frames[5:]]
    assert all(len(c) <= AUDIO_CHUNK_BYTES for c in chunks)
    assert b"".join(chunks) == audio.read_bytes()


def test_audio_bytes_are_sent_only_for_audio(tmp_path: Path) -> None:
    source = tmp_path / "input"
    source.write_bytes(b"input")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    text = _spool(tmp_path / "a", "text")
    frames = list(result_frames(text, "txt", source, docreader_pb2.ReadStreamResponse, LIMIT))
    assert [f.WhichOneof("frame") for f in frames] == ["meta", "markdown_chunk"]
    assert read_result(text, "txt", source, LIMIT).audio_data == b""
    audio = _spool(tmp_path / "b", "stub", audio=True)
    result = read_result(audio, "wav", source, LIMIT)
    assert (result.audio_data, result.detected_file_type) == (b"input", "wav")


def test_oversized_image_and_unary_result_are_refused_with_their_size(tmp_path: Path) -> None:
    source = tmp_path / "input"
    source.write_bytes(b"")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    image = ParsedImage("image-1.png", b"\x00" * 5000, "image/png")
    with_image = _spool(tmp_path / "a", "ok", [image])
    with pytest.raises(ResultTooLargeError, match=r"image image-1\.png is \d+ bytes"):
        list(result_frames(with_image, "md", source, docreader_pb2.ReadStreamResponse, 1000))
    # Long Markdown streams in pieces; only the unary Read is capped by the message size.
    long_text = _spool(tmp_path / "b", "x" * 2000)
    frames = list(result_frames(long_text, "md", source, docreader_pb2.ReadStreamResponse, 1000))
    assert "".join(f.markdown_chunk for f in frames[1:]) == "x" * 2000
    with pytest.raises(ResultTooLargeError, match="use ReadStream"):
        read_result(long_text, "md", source, 1000)
