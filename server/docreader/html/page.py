"""A whole web page → Markdown of its main content, plus its title, language and description:
the pipeline the HTML and MHTML parsers share."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from server.docreader.html.cleanup import page_metadata
from server.docreader.html.converter import ImageResolver, html_to_markdown
from server.docreader.html.loading import parse_html
from server.docreader.html.main_content import main_content
from server.docreader.parser_contract import DocumentSink, ParsedImage


class ConvertedPage(NamedTuple):
    markdown: str
    metadata: dict[str, str]

    def write_to(self, sink: DocumentSink, images: Iterable[ParsedImage]) -> None:
        """The page's metadata, its Markdown, then the images it links."""
        for key, value in self.metadata.items():
            sink.set_metadata(key, value)
        if self.markdown:
            sink.write(self.markdown)
        for image in images:
            sink.add_image(image)


def convert_page(
    data: bytes, resolve_image: ImageResolver, *, declared_encoding: str | None = None
) -> ConvertedPage:
    tree = parse_html(data, declared_encoding=declared_encoding)
    metadata = page_metadata(tree)
    return ConvertedPage(html_to_markdown(main_content(tree), resolve_image), metadata)
