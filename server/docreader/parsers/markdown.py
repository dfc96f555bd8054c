"""Markdown passes through; with image extraction on, data-URI images become ImageRefs."""

from __future__ import annotations

import re

from server.docreader.parsers.base import ParsedDocument, ParseOptions
from server.docreader.parsers.data_uri import ImageCollector
from server.docreader.parsers.text_decoding import decode_text, normalize_newlines

# ![alt](data:image/png;base64,... "optional title") — the title is dropped on rewrite so the
# worker can find the link by its target alone.
_DATA_URI_IMAGE = re.compile(
    r"!\[(?P<alt>[^\]]*)\]\(\s*<?(?P<uri>data:image/[^)\s>]+)>?"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)",
    re.IGNORECASE,
)


class MarkdownParser:
    def __init__(self, *, extract_images: bool = True) -> None:
        self._extract_images = extract_images

    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        markdown = normalize_newlines(decode_text(content))
        if not self._extract_images:
            return ParsedDocument(markdown=markdown)
        collector = ImageCollector()

        def rewrite(match: re.Match[str]) -> str:
            ref = collector.add_data_uri(match.group("uri"))
            return match.group(0) if ref is None else f"![{match.group('alt')}]({ref})"

        return ParsedDocument(
            markdown=_DATA_URI_IMAGE.sub(rewrite, markdown), images=collector.images
        )
