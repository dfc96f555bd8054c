"""PDF → Markdown with PDFium (pypdfium2), streamed page by page.

Each page is read, turned into Markdown blocks and closed before the next one is opened;
only the repeated-header filter holds a few pages of Markdown back. Engine option:
``password`` opens an encrypted PDF. Scanned pages are OCRed in the read's OCR languages (see
``ocr_languages``). Metadata: page_count, scanned_page_count, ocr_page_count, ocr_languages
(those of the last OCRed page), image_count, and title/author/subject when the PDF declares
them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from server.docreader.errors import ParseError
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.parsers.pdf.blocks import Block, continues, join
from server.docreader.parsers.pdf.figures import PdfImages
from server.docreader.parsers.pdf.headers import RepeatedMarginFilter
from server.docreader.parsers.pdf.page import PageReader

PASSWORD_OPTION = "password"
_HEADER_WINDOW = 1024
_METADATA_KEYS = {"Title": "title", "Author": "author", "Subject": "subject"}
# Values generators write when nothing was set (reportlab's defaults among them).
_PLACEHOLDERS = frozenset({"anonymous", "(anonymous)", "unspecified", "(unspecified)", "untitled"})
_MAX_METADATA_CHARS = 1_000


class PdfParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        _check_signature(source)
        pdf = _open(source, options)
        try:
            _read(pdf, options, sink)
        finally:
            pdf.close()


def _check_signature(source: Path) -> None:
    with source.open("rb") as handle:
        head = handle.read(_HEADER_WINDOW)
    if b"%PDF-" not in head:
        raise ParseError("the file is not a PDF (no %PDF- header)")


def _open(source: Path, options: ParseOptions) -> Any:
    password = options.engine_options.get(PASSWORD_OPTION) or None
    try:
        return pdfium.PdfDocument(source, password=password)
    except pdfium.PdfiumError as err:
        code = getattr(err, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            wrong = " and the password given is wrong" if password else ""
            raise ParseError(f"the PDF is password-protected{wrong}") from err
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise ParseError("the PDF uses an unsupported encryption scheme") from err
        raise ParseError(f"the PDF is truncated or corrupt ({err})") from err


def _read(pdf: Any, options: ParseOptions, sink: DocumentSink) -> None:
    page_count = len(pdf)
    if page_count > options.limits.max_pages:
        raise ParseError(
            f"the PDF has {page_count} pages, more than the limit of {options.limits.max_pages}"
        )
    sink.set_metadata("page_count", str(page_count))
    for key, value in _document_metadata(pdf).items():
        sink.set_metadata(key, value)
    images = PdfImages(sink, options.limits)
    reader = PageReader(options, images)
    margins = RepeatedMarginFilter(page_count)
    writer = _Writer(sink)
    scanned = ocr = 0
    ocr_languages: tuple[str, ...] = ()
    for index in range(page_count):
        try:
            page = pdf[index]
        except pdfium.PdfiumError as err:
            raise ParseError(f"page {index + 1} of the PDF cannot be read ({err})") from err
        try:
            result = reader.read(page, index + 1)
        except pdfium.PdfiumError as err:
            raise ParseError(f"page {index + 1} of the PDF cannot be read ({err})") from err
        finally:
            page.close()
        scanned += result.scanned
        ocr += result.ocr
        ocr_languages = result.ocr_languages or ocr_languages
        for blocks in margins.push(result.blocks):
            writer.page(blocks)
    for blocks in margins.finish():
        writer.page(blocks)
    writer.finish()
    sink.set_metadata("scanned_page_count", str(scanned))
    sink.set_metadata("ocr_page_count", str(ocr))
    if ocr_languages:
        sink.set_metadata("ocr_languages", "+".join(ocr_languages))
    sink.set_metadata("image_count", str(images.count))


def _document_metadata(pdf: Any) -> dict[str, str]:
    try:
        declared = pdf.get_metadata_dict(skip_empty=True)
    except pdfium.PdfiumError:
        return {}
    found: dict[str, str] = {}
    for pdf_key, key in _METADATA_KEYS.items():
        value = " ".join(str(declared.get(pdf_key, "")).replace("\x00", "").split())
        if value and value.lower() not in _PLACEHOLDERS:
            found[key] = value[:_MAX_METADATA_CHARS]
    return found


class _Writer:
    """Writes finished pages to the sink, a blank line between blocks and between pages.

    The last block of a page is held back until the next page shows whether its first
    paragraph continues it.
    """

    def __init__(self, sink: DocumentSink) -> None:
        self._sink = sink
        self._started = False
        self._held: Block | None = None

    def page(self, blocks: list[Block]) -> None:
        blocks = [block for block in blocks if block.markdown]
        if not blocks:
            return
        if self._held is not None:
            if continues(self._held, blocks[0]):
                blocks[0] = join(self._held, blocks[0])
            else:
                blocks.insert(0, self._held)
        self._held = blocks.pop()
        self._write(blocks)

    def finish(self) -> None:
        if self._held is not None:
            self._write([self._held])
            self._held = None

    def _write(self, blocks: list[Block]) -> None:
        if blocks:
            text = "\n\n".join(block.markdown for block in blocks)
            self._sink.write(f"\n\n{text}" if self._started else text)
            self._started = True
