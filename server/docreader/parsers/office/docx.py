"""docx → Markdown: headings, lists, tables, images in place, hyperlinks, metadata.

The file is validated first (encrypted-OOXML detection, zip bomb checks); then only the parts
needed (document, styles, numbering, core properties, relationships, and each image when it is
met) are read from the zip and parsed with plain lxml (see opc), and the body is walked
directly. python-docx is not used: its loader parses every part into its own element classes,
which costs more than this whole conversion. Blocks go to the sink as they are read (runs of
plain paragraphs a few hundred at a time).

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

from collections.abc import Callable
from pathlib import Path

from server.docreader.errors import ParseError
from server.docreader.markdown.tables import markdown_table
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.office.blocks import BlockWriter
from server.docreader.parsers.office.container import open_ooxml_container
from server.docreader.parsers.office.core_properties import write_package_core_metadata
from server.docreader.parsers.office.docx_inline import (
    NO_PROPERTIES,
    SCAN_TAGS,
    InlineText,
    ParagraphProperties,
)
from server.docreader.parsers.office.docx_scan import block_nodes
from server.docreader.parsers.office.docx_style_part import read_paragraph_styles
from server.docreader.parsers.office.docx_styles import (
    Numbering,
    ParagraphStyle,
    StyleMap,
    outline_heading,
)
from server.docreader.parsers.office.docx_tables import TABLE_TAGS, TableReader, rows_from_nodes
from server.docreader.parsers.office.images import OfficeImages
from server.docreader.parsers.office.opc import OpcPackage
from server.docreader.parsers.office.wordml import Element, W
from server.docreader.text.cjk import one_line

_P = W + "p"
_SCAN_TAGS = (*SCAN_TAGS, *TABLE_TAGS)
_RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_MAIN_DOCUMENT, _STYLES, _NUMBERING = (
    _RELATIONSHIPS + "officeDocument",
    _RELATIONSHIPS + "styles",
    _RELATIONSHIPS + "numbering",
)
# The main document part of a document, a template, and their macro-enabled variants: the
# same WordprocessingML. Any other main part (a workbook, a presentation) is not Word's.
_WORD_MAIN_PARTS = frozenset({
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.document.macroEnabled.main+xml",
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
})  # fmt: skip


class DocxParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        what = f"docx {options.file_name!r}" if options.file_name else "docx"
        with open_ooxml_container(source, options.limits, what=what) as archive:
            package = OpcPackage(archive, what=what)
            main = _main_document_part(package, what)
            root = package.xml(main)
            images = OfficeImages(sink)
            walker = _BodyWriter(
                BlockWriter(sink),
                StyleMap(_styles(package, main)),
                lambda: Numbering(_related_xml(package, main, _NUMBERING)),
                InlineText(package, main, images),
            )
            body = root.find(W + "body")
            if body is not None:
                walker.body(body)
            write_package_core_metadata(package, sink)
        sink.set_metadata("paragraph_count", str(walker.paragraphs))
        sink.set_metadata("table_count", str(walker.tables))
        sink.set_metadata("image_count", str(images.count))


class _BodyWriter:
    def __init__(
        self,
        writer: BlockWriter,
        styles: StyleMap,
        read_numbering: Callable[[], Numbering],
        inline: InlineText,
    ) -> None:
        self._writer = writer
        self._styles = styles
        # Read at the first list item: most documents have none.
        self._read_numbering = read_numbering
        self._numbering: Numbering | None = None
        self._inline = inline
        self._nested_tables = TableReader(inline.text)
        default = styles.style(None)
        self._default_is_plain = not default.heading_level and not default.num_id
        self.paragraphs = 0
        self.tables = 0
        # The list the last top-level item belonged to: another list at level 0 starts afresh.
        self._top_list = ""

    def body(self, body: Element) -> None:
        read = self._inline.paragraph
        for block, nodes in block_nodes(body, _SCAN_TAGS):
            if block is None:
                self._plain_paragraphs(nodes)
            elif block.tag == _P:
                text, properties = read(block, nodes)
                self._paragraph(_trimmed(text), properties)
            else:
                self._table(block, nodes)

    def _plain_paragraphs(self, paragraphs: list[Element]) -> None:
        """Paragraphs without properties of their own: in a plain default style (neither a
        heading nor a list), the bulk of most documents, they are written as one block, joined
        by the blank lines the writer would put between them."""
        texts = [_trimmed(text) for text in self._inline.plain_texts(paragraphs)]
        if not self._default_is_plain:
            for text in texts:
                self._paragraph(text, NO_PROPERTIES)
            return
        texts = [text for text in texts if text]
        if texts:
            self.paragraphs += len(texts)
            self._writer.block("\n\n".join(texts))

    def _table(self, table: Element, nodes: list[Element]) -> None:
        self.tables += 1
        rows = rows_from_nodes(nodes, self._inline.paragraph_text)
        if rows is None:
            rows = self._nested_tables.rows(table)
        self._writer.block(markdown_table(rows))

    def _paragraph(self, text: str, properties: ParagraphProperties) -> None:
        """``text``: the paragraph's trimmed text."""
        if not text:
            return
        self.paragraphs += 1
        style = self._styles.style(properties.style_id)
        level = (
            outline_heading(_to_int(properties.outline_level, 9))
            if properties.outline_level is not None
            else style.heading_level
        )
        if level:
            self._writer.block("#" * level + " " + one_line(text))
            return
        if properties.num_id is None and not style.num_id:
            self._writer.block(text)
            return
        num_id, ilvl = _list_position(properties, style)
        if not num_id:
            self._writer.block(text)
            return
        depth = ilvl + style.depth_bonus
        if self._numbering is None:
            self._numbering = self._read_numbering()
        marker = self._numbering.marker(num_id, ilvl)
        new_list = depth == 0 and num_id != self._top_list
        if depth == 0:
            self._top_list = num_id
        self._writer.list_item(
            one_line(text), depth=min(depth, 8), marker=marker, new_list=new_list
        )


def _list_position(properties: ParagraphProperties, style: ParagraphStyle) -> tuple[str, int]:
    """The paragraph's (numId, ilvl), its own numPr over its style's; numId "" (or Word's "0",
    which switches numbering off) means it is not a list item."""
    num_id = properties.num_id if properties.num_id is not None else style.num_id
    if num_id in ("", "0"):
        return "", 0
    ilvl = _to_int(properties.ilvl, 0) if properties.ilvl is not None else style.ilvl or 0
    return num_id, min(max(ilvl, 0), 8)


def _main_document_part(package: OpcPackage, what: str) -> str:
    part = package.related("", _MAIN_DOCUMENT)
    if part is None:
        raise ParseError(f"the {what} cannot be opened as a Word document: it has no main part")
    content_type = package.content_type(part)
    if content_type not in _WORD_MAIN_PARTS:
        raise ParseError(
            f"the {what} cannot be opened as a Word document: its main part {part!r} is "
            f"{content_type or 'of no declared type'}"
        )
    return part


def _styles(package: OpcPackage, part: str) -> Element | None:
    related = package.related(part, _STYLES)
    return read_paragraph_styles(package, related) if related is not None else None


def _related_xml(package: OpcPackage, part: str, relationship_type: str) -> Element | None:
    related = package.related(part, relationship_type)
    return package.xml(related) if related is not None else None


def _to_int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _trimmed(text: str) -> str:
    return text.strip() if "\n" not in text else _tidy(text)


def _tidy(text: str) -> str:
    """Trim each line (no trailing spaces, no leading tab that would start a code block)."""
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)
