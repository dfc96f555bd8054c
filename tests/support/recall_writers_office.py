"""The recall corpus in office formats and PDF: docx and pptx (python-docx, python-pptx),
xlsx and xls (openpyxl, xlwt; a sheet per table), a text PDF (reportlab, the WenQuanYi font
embedded so Cyrillic and Chinese have a text layer), and doc/ppt converted from the
docx/pptx by LibreOffice."""

from __future__ import annotations

import io
import re
import shutil
from functools import cache
from pathlib import Path

import docx
import xlwt
from docx.shared import Inches
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches as PptxInches
from pptx.util import Pt
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Flowable, ListFlowable, ListItem, SimpleDocTemplate, TableStyle
from reportlab.platypus import Image as PdfImage
from reportlab.platypus import Paragraph as PdfParagraph
from reportlab.platypus import Table as PdfTable

from tests.support.corpus_office import soffice_convert
from tests.support.recall_documents import (
    Heading,
    Items,
    Note,
    Paragraph,
    Picture,
    RecallDocument,
    Table,
)
from tests.support.recall_pictures import FONT_PATH, picture_png


def _cell(value: str) -> int | str:
    return int(value) if value.isdigit() else value


def write_docx(doc: RecallDocument, path: Path) -> None:
    document = docx.Document()
    for block in doc.blocks:
        if isinstance(block, Heading):
            document.add_heading(block.text, level=block.level)
        elif isinstance(block, Paragraph):
            document.add_paragraph(block.text)
        elif isinstance(block, Items):
            for item in block.items:
                document.add_paragraph(item, style="List Bullet")
        elif isinstance(block, Table):
            table = document.add_table(rows=1 + len(block.rows), cols=len(block.header))
            table.style = "Table Grid"
            for row, values in zip(table.rows, (block.header, *block.rows), strict=True):
                for cell, value in zip(row.cells, values, strict=True):
                    cell.text = value
        elif isinstance(block, Picture):
            document.add_picture(io.BytesIO(picture_png(block.lines)), width=Inches(4))
        else:
            raise ValueError(f"the docx writer places no {type(block).__name__}")
    document.save(str(path))


_SLIDE_WIDTH_IN = 9.0


def write_pptx(doc: RecallDocument, path: Path) -> None:
    """A title slide, then a "Title and Content" slide per section: lists in the content
    placeholder, paragraphs in text boxes below, tables, pictures, notes as speaker notes."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    top = 3.0
    for block in doc.blocks:
        if isinstance(block, Heading):
            if block.level == 1:
                slide.shapes.title.text = block.text
                continue
            slide = deck.slides.add_slide(deck.slide_layouts[1])
            slide.shapes.title.text = block.text
            top = 1.5
        elif isinstance(block, Items):
            body = slide.placeholders[1].text_frame
            body.text = block.items[0]
            for item in block.items[1:]:
                body.add_paragraph().text = item
            top += 2.0
        elif isinstance(block, Paragraph):
            box = slide.shapes.add_textbox(
                PptxInches(0.5), PptxInches(top), PptxInches(_SLIDE_WIDTH_IN), PptxInches(1.2)
            )
            box.text_frame.word_wrap = True
            box.text_frame.text = block.text
            box.text_frame.paragraphs[0].runs[0].font.size = Pt(14)
            top += 1.3
        elif isinstance(block, Table):
            shape = slide.shapes.add_table(
                1 + len(block.rows),
                len(block.header),
                PptxInches(0.5),
                PptxInches(top),
                PptxInches(_SLIDE_WIDTH_IN),
                PptxInches(0.4 * (1 + len(block.rows))),
            )
            for r, values in enumerate((block.header, *block.rows)):
                for c, value in enumerate(values):
                    shape.table.cell(r, c).text = value
            top += 0.4 * (1 + len(block.rows)) + 0.2
        elif isinstance(block, Note):
            slide.notes_slide.notes_text_frame.text = block.text
        elif isinstance(block, Picture):
            slide.shapes.add_picture(
                io.BytesIO(picture_png(block.lines)),
                PptxInches(0.5),
                PptxInches(top),
                width=PptxInches(5),
            )
            top += 2.0
    deck.save(str(path))


def _sheet_names(doc: RecallDocument) -> list[str]:
    """A sheet name per table: its section heading, unique and within Excel's rules."""
    names: list[str] = []
    heading = "Sheet"
    for block in doc.blocks:
        if isinstance(block, Heading):
            heading = re.sub(r"[\[\]:*?/\\]", " ", block.text)[:28]
        elif isinstance(block, Table):
            names.append(heading if heading not in names else f"{heading} {len(names) + 1}")
    return names


def write_xlsx(doc: RecallDocument, path: Path) -> None:
    workbook = Workbook()
    tables = [b for b in doc.blocks if isinstance(b, Table)]
    for n, (name, table) in enumerate(zip(_sheet_names(doc), tables, strict=True)):
        sheet = workbook.active if n == 0 else workbook.create_sheet()
        assert sheet is not None
        sheet.title = name
        sheet.append(list(table.header))
        for row in table.rows:
            sheet.append([_cell(v) for v in row])
    workbook.save(str(path))


def write_xls(doc: RecallDocument, path: Path) -> None:
    workbook = xlwt.Workbook(encoding="utf-8")
    tables = [b for b in doc.blocks if isinstance(b, Table)]
    for name, table in zip(_sheet_names(doc), tables, strict=True):
        sheet = workbook.add_sheet(name)
        for r, values in enumerate((table.header, *table.rows)):
            for c, value in enumerate(values):
                sheet.write(r, c, _cell(value))
    workbook.save(str(path))


_PDF_FONT = "RecallWQY"


@cache
def _pdf_font() -> str:
    pdfmetrics.registerFont(TTFont(_PDF_FONT, str(FONT_PATH), subfontIndex=0))
    return _PDF_FONT


def _pdf_styles(language: str) -> dict[str, ParagraphStyle]:
    font = _pdf_font()
    wrap = "CJK" if language == "zh" else None
    sample = getSampleStyleSheet()
    return {
        name: ParagraphStyle(
            f"recall-{name}", parent=sample[base], fontName=font, wordWrap=wrap, **extra
        )
        for name, base, extra in (
            ("title", "Title", {}),
            ("heading", "Heading2", {}),
            ("body", "BodyText", {}),
            ("note", "BodyText", {"fontSize": 8, "leading": 10}),
        )
    }


def write_pdf(doc: RecallDocument, path: Path) -> None:
    styles = _pdf_styles(doc.language)
    story: list[Flowable] = []
    grid = TableStyle(
        [("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("FONTNAME", (0, 0), (-1, -1), _pdf_font())]
    )
    for block in doc.blocks:
        if isinstance(block, Heading):
            story.append(
                PdfParagraph(block.text, styles["title" if block.level == 1 else "heading"])
            )
        elif isinstance(block, Paragraph):
            story.append(PdfParagraph(block.text, styles["body"]))
        elif isinstance(block, Items):
            story.append(
                ListFlowable(
                    [ListItem(PdfParagraph(item, styles["body"])) for item in block.items],
                    bulletType="bullet",
                )
            )
        elif isinstance(block, Table):
            story.append(PdfTable([list(block.header), *map(list, block.rows)], style=grid))
        elif isinstance(block, Note):
            story.append(PdfParagraph(f"{block.label}: {block.text}", styles["note"]))
        elif isinstance(block, Picture):
            png = picture_png(block.lines)
            image = PdfImage(io.BytesIO(png))
            scale = 12 * cm / image.imageWidth
            image.drawWidth, image.drawHeight = 12 * cm, image.imageHeight * scale
            story.append(image)
    SimpleDocTemplate(str(path), pagesize=A4, title=doc.title).build(story)


def write_converted(doc: RecallDocument, path: Path, target_type: str) -> None:
    """doc from the docx, ppt from the pptx, by LibreOffice (its profile next to ``path``,
    which the caller removes)."""
    scratch = path.parent / f".convert-{doc.key}"
    scratch.mkdir(exist_ok=True)
    source = scratch / f"{doc.key}.{'docx' if target_type == 'doc' else 'pptx'}"
    (write_docx if target_type == "doc" else write_pptx)(doc, source)
    soffice_convert(source, target_type, path)
    shutil.rmtree(scratch)
