"""HTML → Markdown of the page's main content, with its data-URI images extracted.

The conversion is ``server.docreader.html``: lexbor parse (as browsers do), main content
chosen, one walk to Markdown with boilerplate skipped. ``<img src="data:...">`` images become
image refs; other image sources stay links. The title, ``lang`` and meta description go into
the metadata.
"""

from __future__ import annotations

from pathlib import Path

from server.docreader.html.images import data_uri_images
from server.docreader.html.page import convert_page
from server.docreader.image_collector import ImageCollector
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.plain_text import read_limited
from server.docreader.safety.limits import ParseLimits


class HtmlParser:
    def max_input_bytes(self, limits: ParseLimits) -> int:
        return limits.max_text_bytes

    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        collector = ImageCollector()
        page = convert_page(read_limited(source, options.limits), data_uri_images(collector))
        page.write_to(sink, collector.images)
