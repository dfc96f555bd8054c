"""Markdown passes through; with image extraction on, data-URI images become image refs.

The line-length limit is applied to the text without its data-URI images: a pasted screenshot
is a legitimate multi-megabyte line in exported notes, any other line that long is not.
"""

from __future__ import annotations

import re
from pathlib import Path

from server.docreader.image_collector import ImageCollector
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.plain_text import LineLengthGuard, read_limited
from server.docreader.safety.limits import ParseLimits
from server.docreader.text.decoding import decode_text, normalize_newlines

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

    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        markdown = normalize_newlines(decode_text(read_limited(source, options.limits)))
        guard = LineLengthGuard(options.limits.max_line_chars)
        if not self._extract_images:
            guard.feed_text(_DATA_URI_IMAGE.sub("", markdown))
            if markdown:
                sink.write(markdown)
            return
        collector = ImageCollector()

        def rewrite(match: re.Match[str]) -> str:
            ref = collector.add_data_uri(match.group("uri"))
            return match.group(0) if ref is None else f"![{match.group('alt')}]({ref})"

        markdown = _DATA_URI_IMAGE.sub(rewrite, markdown)
        guard.feed_text(markdown)
        if markdown:
            sink.write(markdown)
        for image in collector.images:
            sink.add_image(image)
