"""Plain text, kept as it is (decoded, ``\\n`` line breaks); and the bounded reads every
text-like parser (txt, md, json, html, mhtml) shares.

``read_limited`` refuses a file over ``max_text_bytes`` before reading a byte of it.
``read_text`` also refuses a file with a line over ``max_line_chars`` — minified blobs,
binary junk, a 200 MB single line — and does it while streaming: the file is read in blocks
no longer than the line limit, so only a line that crosses a block boundary can be too long
and only the boundaries are measured; the read stops at the first such line.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from server.docreader.errors import ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.safety.limits import ParseLimits
from server.docreader.text.decoding import decode_text, normalize_newlines

_MAX_BLOCK = 1 << 20
# UTF-8 continuation bytes: dropping them from a run of bytes leaves one byte per character.
_UTF8_CONTINUATION = bytes(range(0x80, 0xC0))
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class PlainTextParser:
    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        text = normalize_newlines(decode_text(read_text(source, options.limits)))
        if text:
            sink.write(text)


def read_limited(source: Path, limits: ParseLimits) -> bytes:
    _check_size(source, limits)
    try:
        return source.read_bytes()
    except OSError as err:
        raise ParseError(f"the file cannot be read: {err}") from err


def read_text(source: Path, limits: ParseLimits) -> bytes:
    _check_size(source, limits)
    guard = LineLengthGuard(limits.max_line_chars)
    blocks: list[bytes] = []
    try:
        with source.open("rb") as stream:
            while block := stream.read(guard.block_size):
                guard.feed_bytes(block)
                blocks.append(block)
    except OSError as err:
        raise ParseError(f"the file cannot be read: {err}") from err
    return b"".join(blocks)


class LineLengthGuard:
    """Raises ParseError at the first line longer than ``limit`` characters, fed in blocks of
    at most ``block_size`` (bytes or characters). Bytes are counted as UTF-8 characters, or
    as UTF-16 code units after a UTF-16 byte-order mark; other encodings over-count, which
    only makes the guard stricter."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.block_size = max(1, min(_MAX_BLOCK, limit))
        self._line = 1
        self._length = 0  # characters of the line not yet ended
        self._utf16: bool | None = None

    def feed_text(self, text: str) -> None:
        for start in range(0, len(text), self.block_size):
            block = text[start : start + self.block_size]
            first = block.find("\n")
            if first < 0:
                self._advance(len(block), 0, 0)
            else:
                tail = len(block) - block.rfind("\n") - 1
                self._advance(first, block.count("\n"), tail)

    def feed_bytes(self, block: bytes) -> None:
        if self._utf16 is None:
            self._utf16 = block.startswith(_UTF16_BOMS)
        lines = block.replace(b"\r", b"\n") if b"\r" in block else block
        first = lines.find(b"\n")
        if first < 0:
            self._advance(self._chars(block), 0, 0)
            return
        breaks = lines.count(b"\n") - block.count(b"\r\n")
        tail = self._chars(block[lines.rfind(b"\n") + 1 :])
        self._advance(self._chars(block[:first]), breaks, tail)

    def _chars(self, data: bytes) -> int:
        if self._utf16:
            return len(data) // 2
        return len(data.translate(None, _UTF8_CONTINUATION))

    def _advance(self, head: int, breaks: int, tail: int) -> None:
        """``head`` more characters of the current line, then ``breaks`` line breaks, then a
        new unfinished line of ``tail`` characters (lines in between are shorter than a block,
        so within the limit)."""
        self._length += head
        if self._length > self.limit:
            raise ParseError(
                f"line {self._line} is longer than the line limit of {self.limit} "
                "characters: this is not a text document"
            )
        if breaks:
            self._line += breaks
            self._length = tail


def _check_size(source: Path, limits: ParseLimits) -> None:
    try:
        size = source.stat().st_size
    except OSError as err:
        raise ParseError(f"the file cannot be read: {err}") from err
    if size > limits.max_text_bytes:
        raise ParseError(
            f"the file is {size} bytes, over the limit of {limits.max_text_bytes} bytes"
        )
