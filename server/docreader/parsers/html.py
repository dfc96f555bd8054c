"""HTML → Markdown of the page's main content.

Scripts, styles, navigation, asides, forms and embedded frames are dropped everywhere; page
``header``/``footer`` elements are dropped unless they sit inside ``main``/``article`` (where
they usually hold the article's own title). The main content is ``<main>``, else a single
``<article>``, else ``<body>``. Headings, lists, links and tables are converted by markdownify;
``<img src="data:...">`` images are extracted like in Markdown. The ``<title>`` (and the
``lang`` attribute, when present) go into the metadata.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, Tag
from bs4.element import NavigableString
from markdownify import MarkdownConverter

from server.docreader.parsers.base import ParsedDocument, ParseOptions
from server.docreader.parsers.data_uri import ImageCollector

_ALWAYS_DROPPED = (
    "script", "style", "noscript", "template", "nav", "aside", "form", "iframe", "object",
    "embed", "button", "select", "input", "textarea",
)
_PAGE_CHROME = ("header", "footer")
_CONTENT_ROOTS = ("main", "article")
_EXTRA_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


class HtmlParser:
    def __init__(self) -> None:
        self._converter = MarkdownConverter(
            heading_style="ATX", bullets="-", table_infer_header=True, escape_misc=False
        )

    def parse(self, content: bytes, options: ParseOptions) -> ParsedDocument:
        soup = BeautifulSoup(content, "lxml")
        metadata = _metadata(soup)
        _drop_boilerplate(soup)
        root = _content_root(soup)
        collector = ImageCollector()
        for image in root.find_all("img"):
            ref = collector.add_data_uri(str(image.get("src", "")))
            if ref is not None:
                image["src"] = ref
                # Markdown links stay "![alt](ref)" so the worker can find them by target.
                del image["title"]
        _escape_cell_pipes(root)
        markdown = self._converter.convert_soup(root)
        markdown = _EXTRA_BLANK_LINES.sub("\n\n", markdown).strip()
        return ParsedDocument(markdown=markdown, images=collector.images, metadata=metadata)


def _metadata(soup: BeautifulSoup) -> dict[str, str]:
    metadata: dict[str, str] = {}
    if soup.title is not None:
        title = " ".join(soup.title.get_text().split())
        if title:
            metadata["title"] = title
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        metadata["language"] = str(html.get("lang"))
    return metadata


def _drop_boilerplate(soup: BeautifulSoup) -> None:
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(_ALWAYS_DROPPED):
        tag.decompose()
    for tag in soup.find_all(_PAGE_CHROME):
        if not tag.decomposed and tag.find_parent(_CONTENT_ROOTS) is None:
            tag.decompose()
    if soup.head is not None:
        soup.head.decompose()


def _escape_cell_pipes(root: Tag) -> None:
    """markdownify copies ``|`` into table cells verbatim, which would split the cell."""
    for cell in root.find_all(["td", "th"]):
        for text in cell.find_all(string=lambda s: "|" in s):
            text.replace_with(NavigableString(text.replace("|", "\\|")))


def _content_root(soup: BeautifulSoup) -> Tag:
    main = soup.find("main")
    if isinstance(main, Tag) and main.get_text(strip=True):
        return main
    articles = soup.find_all("article")
    if len(articles) == 1 and articles[0].get_text(strip=True):
        return articles[0]
    return soup.body if soup.body is not None else soup
