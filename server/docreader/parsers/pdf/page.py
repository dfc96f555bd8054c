"""One page → Markdown blocks: the per-page pipeline.

Objects (rules, images) are scanned first because a scanned page needs no text analysis.
Otherwise the text layer is read as pieces, ruled tables take their pieces, embedded images
become figure links, margin lines are set aside for the repeated-header filter, and the rest
is ordered into column regions; in each, rows of aligned cells become borderless tables and
the other lines paragraphs and headings. A page-sized image under a text layer (a scan with
OCR text, a background) is not extracted as a figure. The text page is closed before
returning; the caller closes the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.docreader.ocr_languages import OcrLanguages
from server.docreader.parser_contract import ParseOptions
from server.docreader.parsers.pdf.blocks import Atom, Block, joined
from server.docreader.parsers.pdf.borderless import find_borderless_tables
from server.docreader.parsers.pdf.figures import PdfImages
from server.docreader.parsers.pdf.geometry import PageFrame
from server.docreader.parsers.pdf.headers import split_margins
from server.docreader.parsers.pdf.layout import Item, reading_regions
from server.docreader.parsers.pdf.lines import group_rows
from server.docreader.parsers.pdf.objects import PageObjects, scan_objects
from server.docreader.parsers.pdf.paragraphs import BodySize, region_blocks
from server.docreader.parsers.pdf.scanned import is_scanned, read_scanned
from server.docreader.parsers.pdf.tables import find_tables
from server.docreader.parsers.pdf.text import Piece, page_text, read_pieces

_BACKGROUND_SHARE = 0.85


@dataclass(frozen=True)
class PageResult:
    blocks: list[Block]
    scanned: bool = False
    ocr: bool = False
    ocr_languages: tuple[str, ...] = ()


class PageReader:
    """Reads the pages of one document in order; keeps the document's body font size."""

    def __init__(self, options: ParseOptions, images: PdfImages) -> None:
        self._options = options
        self._images = images
        self._body_size = BodySize()
        self._ocr_languages = OcrLanguages(options.ocr_languages)

    def read(self, page: Any, number: int) -> PageResult:
        frame = PageFrame(page.get_bbox(), page.get_rotation())
        objects = scan_objects(page, frame)
        textpage = page.get_textpage()
        try:
            text = page_text(textpage)
            if is_scanned(text, objects, frame):
                scanned = read_scanned(
                    page, number, frame, self._options, self._images, self._ocr_languages
                )
                blocks = [Block(markdown) for markdown in scanned.blocks]
                return PageResult(
                    blocks, scanned=True, ocr=scanned.ocr, ocr_languages=scanned.ocr_languages
                )
            self._ocr_languages.note_text(text)
            pieces = read_pieces(textpage, frame, text)
            tables, pieces = find_tables(objects.rules, pieces, textpage, frame)
        finally:
            textpage.close()
        atoms = [*tables, *self._figures(objects, frame, number)]
        margins = split_margins(pieces, [atom.box for atom in atoms], frame.height)
        self._body_size.add(margins.body)
        items: list[Item] = [*margins.body, *atoms]
        body: list[Block] = []
        body_size = self._body_size.value
        for region in reading_regions(items):
            rows = group_rows(item for item in region if isinstance(item, Piece))
            borderless, rows = find_borderless_tables(rows)
            region_atoms = [item for item in region if isinstance(item, Atom)]
            body.extend(region_blocks(rows, [*region_atoms, *borderless], body_size))
        return PageResult([*margins.top, *joined(body), *margins.bottom])

    def _figures(self, objects: PageObjects, frame: PageFrame, number: int) -> list[Atom]:
        atoms: list[Atom] = []
        page_area = frame.width * frame.height
        for image in objects.images:
            box = image.box
            if box.x1 <= 0 or box.bottom <= 0 or box.x0 >= frame.width or box.top >= frame.height:
                continue
            if box.width * box.height >= _BACKGROUND_SHARE * page_area:
                # A page-sized image under a text layer is a scan with OCR text (or a
                # background), not a figure: the text is already there.
                continue
            ref = self._images.figure(image, number)
            if ref is not None:
                atoms.append(Atom(box, f"![figure]({ref})"))
        return atoms
