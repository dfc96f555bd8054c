"""Corpus office files: docx, pptx, xlsx and xls written with their libraries; doc and ppt
converted from a docx/pptx by LibreOffice, since nothing in Python writes the binary formats.

Word files have headings (Heading 1/2 styles), a bullet and a numbered list, a table and a
picture; slides have a title slide, a bullet slide with speaker notes and a table slide with
a picture; workbooks have a "Summary" sheet with the Region/Revenue table and a "Details"
sheet holding the sentences.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import docx
import xlwt
from docx.shared import Inches
from openpyxl import Workbook
from pptx import Presentation
from pptx.util import Inches as PptxInches

from tests.support.corpus_content import (
    BULLET_MARK,
    ITEMS,
    NUMBERED_MARK,
    SECTION,
    SECTION_MARK,
    STEPS,
    TABLE,
    TABLE_HEADER_MARK,
    TABLE_ROW_MARK,
    TITLE,
    TITLE_MARK,
    CorpusFile,
)
from tests.support.corpus_media import figure_png

# LibreOffice's private profile, next to the converted files (the caller removes it).
LO_PROFILE = ".lo-profile"
_SOFFICE_TIMEOUT_S = 180
_SHEET_MARKS = ("Summary", "Details", TABLE_HEADER_MARK, "North", "1200")
_SLIDE_MARKS = (TITLE, SECTION, ITEMS[0], TABLE_HEADER_MARK, TABLE_ROW_MARK)


def build_docx(path: Path, sentences: tuple[str, str], file_type: str = "docx") -> CorpusFile:
    document = docx.Document()
    document.add_heading(TITLE, level=1)
    document.add_paragraph(sentences[0])
    document.add_heading(SECTION, level=2)
    paragraph = document.add_paragraph()
    paragraph.add_run(sentences[1]).bold = True
    for item in ITEMS:
        document.add_paragraph(item, style="List Bullet")
    for step in STEPS:
        document.add_paragraph(step, style="List Number")
    table = document.add_table(rows=len(TABLE), cols=len(TABLE[0]))
    table.style = "Table Grid"
    for row, values in zip(table.rows, TABLE, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_picture(io.BytesIO(figure_png()), width=Inches(2))
    document.save(str(path))
    marks = (
        TITLE_MARK,
        SECTION_MARK,
        BULLET_MARK,
        NUMBERED_MARK,
        TABLE_HEADER_MARK,
        TABLE_ROW_MARK,
    )
    return CorpusFile(path, file_type, sentences, marks, images=1)


def build_pptx(path: Path, sentences: tuple[str, str], file_type: str = "pptx") -> CorpusFile:
    deck = Presentation()
    title_slide = deck.slides.add_slide(deck.slide_layouts[0])
    title_slide.shapes.title.text = TITLE
    title_slide.placeholders[1].text = sentences[0]
    bullets = deck.slides.add_slide(deck.slide_layouts[1])
    bullets.shapes.title.text = SECTION
    body = bullets.placeholders[1].text_frame
    body.text = ITEMS[0]
    for item in ITEMS[1:]:
        body.add_paragraph().text = item
    bullets.notes_slide.notes_text_frame.text = sentences[1]
    table_slide = deck.slides.add_slide(deck.slide_layouts[5])
    table_slide.shapes.title.text = "Revenue Table"
    shape = table_slide.shapes.add_table(
        len(TABLE), len(TABLE[0]), PptxInches(1), PptxInches(2), PptxInches(6), PptxInches(1.5)
    )
    for r, values in enumerate(TABLE):
        for c, value in enumerate(values):
            shape.table.cell(r, c).text = value
    table_slide.shapes.add_picture(io.BytesIO(figure_png()), PptxInches(1), PptxInches(4.5))
    deck.save(str(path))
    return CorpusFile(path, file_type, sentences, _SLIDE_MARKS, images=1)


def build_xlsx(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    workbook = Workbook()
    summary = workbook.active
    summary.title = "Summary"
    for region, revenue in TABLE:
        summary.append([region, int(revenue) if revenue.isdigit() else revenue])
    details = workbook.create_sheet("Details")
    details.append(["Remark"])
    for sentence in sentences:
        details.append([sentence])
    workbook.save(str(path))
    return CorpusFile(path, "xlsx", sentences, (*_SHEET_MARKS, TABLE_ROW_MARK))


def build_xls(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    workbook = xlwt.Workbook()
    summary = workbook.add_sheet("Summary")
    for r, (region, revenue) in enumerate(TABLE):
        summary.write(r, 0, region)
        summary.write(r, 1, int(revenue) if revenue.isdigit() else revenue)
    details = workbook.add_sheet("Details")
    details.write(0, 0, "Remark")
    for r, sentence in enumerate(sentences, start=1):
        details.write(r, 0, sentence)
    workbook.save(str(path))
    # xlrd reads numbers back as floats: "1200" is matched loosely (1200 or 1200.0).
    return CorpusFile(path, "xls", sentences, _SHEET_MARKS)


def build_doc(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    scratch = _scratch(path)
    source = build_docx(scratch / f"{path.stem}.docx", sentences)
    soffice_convert(source.path, "doc", path)
    shutil.rmtree(scratch)
    # The round trip through LibreOffice keeps headings, lists, the table and the picture.
    return CorpusFile(path, "doc", sentences, source.fidelity, images=1)


def build_ppt(path: Path, sentences: tuple[str, str]) -> CorpusFile:
    scratch = _scratch(path)
    source = build_pptx(scratch / f"{path.stem}.pptx", sentences)
    soffice_convert(source.path, "ppt", path)
    shutil.rmtree(scratch)
    return CorpusFile(path, "ppt", sentences, source.fidelity, images=1)


def _scratch(path: Path) -> Path:
    scratch = path.parent / f".convert-{path.suffix.lstrip('.')}"
    scratch.mkdir(exist_ok=True)
    return scratch


def soffice_convert(source: Path, target_type: str, target: Path) -> None:
    """One headless LibreOffice conversion in a private profile (no shared ~/.config lock);
    the profile lives next to ``target``, where the caller removes it."""
    soffice = shutil.which("soffice")
    if soffice is None:
        raise RuntimeError("LibreOffice (soffice) is needed to write .doc and .ppt files")
    profile = target.parent / LO_PROFILE
    out_dir = source.parent
    completed = subprocess.run(
        [
            soffice,
            "--headless",
            "--norestore",
            f"-env:UserInstallation={profile.as_uri()}",
            "--convert-to",
            target_type,
            "--outdir",
            str(out_dir),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=_SOFFICE_TIMEOUT_S,
        check=False,
    )
    produced = out_dir / f"{source.stem}.{target_type}"
    if completed.returncode != 0 or not produced.exists():
        raise RuntimeError(
            f"soffice could not convert {source.name} to {target_type}: "
            f"{completed.stdout}{completed.stderr}"
        )
    produced.replace(target)
