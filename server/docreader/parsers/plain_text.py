"""Plain text is kept as it is, decoded and with ``\\n`` line breaks."""

from __future__ import annotations

from server.docreader.parsers.base import ParsedDocument, ParseOptions
from server.docreader.parsers.text_decoding import decode_text, normalize_newlines


class PlainTextParser:
    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        return ParsedDocument(markdown=normalize_newlines(decode_text(content)))
