"""docx → Markdown: headings, lists, tables, images in place, hyperlinks, metadata.

The file is validated first (encrypted-OOXML detection, zip bomb checks), loaded with
python-docx, and then its body is walked directly with lxml: python-docx's per-paragraph
proxy objects (and its style lookups) would cost more than loading the document itself.
Blocks go to the sink one by one as they are read.

- Headings: Title and "heading N" styles (also styles based on them, or with an outline
  level) → ``#`` .. ``######``.
- Lists: a paragraph with numbering (its own w:numPr or its style's) → ``- `` or ``N. ``
  by the level's number format in numbering.xml, indented two spaces per level.
- Tables → GFM tables with merged cells filled (see docx_tables).
- Images (DrawingML and VML) → ``![image](image-N.ext)`` where they stand.
- Hyperlinks to outside addresses → ``[text](url)``; other links keep their text.

Metadata: title and author (core properties), paragraph_count, table_count, image_count.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT

from server.docreader.markdown.tables import markdown_table
from server.docreader.parsers.base import DocumentSink, ParseOptions
from server.docreader.parsers.library_errors import library_errors
from server.docreader.parsers.office.blocks import BlockWriter
from server.docreader.parsers.office.container import check_ooxml_container
from server.docreader.parsers.office.core_properties import write_core_metadata
from server.docreader.parsers.office.docx_inline import SCAN_TAGS, InlineText, ParagraphInfo
from server.docreader.parsers.office.docx_scan import block_nodes
from server.docreader.parsers.office.docx_styles import (
    Numbering,
    ParagraphStyle,
    StyleMap,
    outline_heading,
)
from server.docreader.parsers.office.docx_tables import TABLE_TAGS, TableReader, rows_from_nodes
from server.docreader.parsers.office.images import OfficeImages
from server.docreader.parsers.office.wordml import Element, W

_P = W + "p"
_SCAN_TAGS = (*SCAN_TAGS, *TABLE_TAGS)


class DocxParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        what = f"docx {options.file_name!r}" if options.file_name else "docx"
        check_ooxml_container(source, options.limits, what=what)
        with library_errors(what, "cannot be opened as a Word document"):
            document = docx.Document(str(source))
        part = document.part
        images = OfficeImages(sink)
        walker = _BodyWriter(
            BlockWriter(sink),
            StyleMap(_related_element(part, RT.STYLES)),
            Numbering(_related_element(part, RT.NUMBERING)),
            InlineText(part, images),
        )
        body = document.element.body
        if body is not None:
            walker.body(body)
        write_core_metadata(part.package, sink)
        sink.set_metadata("paragraph_count", str(walker.paragraphs))
        sink.set_metadata("table_count", str(walker.tables))
        sink.set_metadata("image_count", str(images.count))


class _BodyWriter:
    def __init__(
        self, writer: BlockWriter, styles: StyleMap, numbering: Numbering, inline: InlineText
    ) -> None:
        self._writer = writer
        self._styles = styles
        self._numbering = numbering
        self._inline = inline
        self._nested_tables = TableReader(inline.text)
        self.paragraphs = 0
        self.tables = 0
        # The list the last top-level item belonged to: another list at level 0 starts afresh.
        self._top_list = ""

    def body(self, body: Element) -> None:
        for block, nodes in block_nodes(body, _SCAN_TAGS):
            if block.tag == _P:
                self._paragraph(block, nodes)
                continue
            self.tables += 1
            rows = rows_from_nodes(nodes, self._inline.paragraph_text)
            if rows is None:
                rows = self._nested_tables.rows(block)
            self._writer.block(markdown_table(rows))

    def _paragraph(self, paragraph: Element, scanned: list[Element]) -> None:
        info = self._inline.paragraph(paragraph, scanned)
        text = info.text
        text = text.strip() if "\n" not in text else _tidy(text)
        if not text:
            return
        self.paragraphs += 1
        style = self._styles.style(info.style_id)
        level = (
            outline_heading(_to_int(info.outline_level, 9))
            if info.outline_level is not None
            else style.heading_level
        )
        if level:
            self._writer.block("#" * level + " " + _one_line(text))
            return
        if info.num_id is None and not style.num_id:
            self._writer.block(text)  # the common case: plain text
            return
        num_id, ilvl = _list_position(info, style)
        if not num_id:
            self._writer.block(text)
            return
        depth = ilvl + style.depth_bonus
        marker = self._numbering.marker(num_id, ilvl)
        new_list = depth == 0 and num_id != self._top_list
        if depth == 0:
            self._top_list = num_id
        self._writer.list_item(
            _one_line(text), depth=min(depth, 8), marker=marker, new_list=new_list
        )


def _list_position(info: ParagraphInfo, style: ParagraphStyle) -> tuple[str, int]:
    """The paragraph's (numId, ilvl), its own numPr over its style's; numId "" (or Word's "0",
    which switches numbering off) means it is not a list item."""
    num_id = info.num_id if info.num_id is not None else style.num_id
    if num_id in ("", "0"):
        return "", 0
    ilvl = _to_int(info.ilvl, 0) if info.ilvl is not None else style.ilvl or 0
    return num_id, min(max(ilvl, 0), 8)


def _related_element(part: Any, reltype: str) -> Element | None:
    try:
        related = part.part_related_by(reltype)
    except (KeyError, ValueError):
        return None
    return getattr(related, "element", None)


def _to_int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _tidy(text: str) -> str:
    """Trim each line (no trailing spaces, no leading tab that would start a code block)."""
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def _one_line(text: str) -> str:
    return " ".join(text.split())
