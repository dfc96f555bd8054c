"""DocxParser on documents generated with python-docx: headings, nested bullet and numbered
lists, tables with merged and nested cells, hyperlinks, inline images, core properties, and
hostile or broken containers."""

from __future__ import annotations

import io
import os
import re
import struct
import zipfile
from pathlib import Path

import docx
import pytest
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls, qn
from PIL import Image

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.office.docx import DocxParser

# A numbering definition with a decimal, a bullet and a decimal level.
_MULTILEVEL_ID = "90"
_ABSTRACT_NUM = (
    f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{_MULTILEVEL_ID}">'
    '<w:multiLevelType w:val="multilevel"/>'
    '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl>'
    '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="bullet"/></w:lvl>'
    '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl>'
    "</w:abstractNum>"
)
_NUM = (
    f'<w:num {nsdecls("w")} w:numId="{_MULTILEVEL_ID}">'
    f'<w:abstractNumId w:val="{_MULTILEVEL_ID}"/></w:num>'
)

EXPECTED_MARKDOWN = """\
# Quarterly Report

# Introduction

Revenue grew in every region.

## Details

### Fine print

- Apples
  - Green apples
- Pears

1. Collect data
   - From sensors
     1. Calibrate
     2. Record
   - From forms
     1. Scan
2. Publish

| Wide | Wide | r0c2 |
| --- | --- | --- |
| r1c0 | r1c1 | Tall |
| r2c0 | r2c1 | Tall |

See [the website](https://example.com/a%20b) for more.

![image](image-1.png)

| Outer | n1; n2<br>n3; n4 |
| --- | --- |

The end."""


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


def _numbered(document: docx.document.Document, text: str, ilvl: int) -> None:
    paragraph = document.add_paragraph(text)
    num_pr = OxmlElement("w:numPr")
    level = OxmlElement("w:ilvl")
    level.set(qn("w:val"), str(ilvl))
    num_id = OxmlElement("w:numId")
    num_id.set(qn("w:val"), _MULTILEVEL_ID)
    num_pr.append(level)
    num_pr.append(num_id)
    paragraph._p.get_or_add_pPr().append(num_pr)


def _hyperlink_paragraph(document: docx.document.Document) -> None:
    paragraph = document.add_paragraph("See ")
    rid = document.part.relate_to("https://example.com/a b", RT.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rid)
    run = OxmlElement("w:r")
    text = OxmlElement("w:t")
    text.text = "the website"
    run.append(text)
    link.append(run)
    paragraph._p.append(link)
    paragraph.add_run(" for more.")


def build_sample(path: Path, png: bytes) -> None:
    document = docx.Document()
    document.core_properties.title = "Quarterly Report"
    document.core_properties.author = "Ada Lovelace"
    numbering = document.part.numbering_part.element
    numbering.insert(0, parse_xml(_ABSTRACT_NUM))
    numbering.append(parse_xml(_NUM))

    document.add_heading("Quarterly Report", 0)
    document.add_heading("Introduction", 1)
    document.add_paragraph("Revenue grew in every region.")
    document.add_paragraph("")  # empty paragraphs are dropped
    document.add_heading("Details", 2)
    document.add_heading("Fine print", 3)
    document.add_paragraph("Apples", style="List Bullet")
    document.add_paragraph("Green apples", style="List Bullet 2")
    document.add_paragraph("Pears", style="List Bullet")
    for text, ilvl in [
        ("Collect data", 0),
        ("From sensors", 1),
        ("Calibrate", 2),
        ("Record", 2),
        ("From forms", 1),
        ("Scan", 2),
        ("Publish", 0),
    ]:
        _numbered(document, text, ilvl)

    table = document.add_table(rows=3, cols=3)
    for row in range(3):
        for column in range(3):
            table.cell(row, column).text = f"r{row}c{column}"
    table.cell(0, 0).merge(table.cell(0, 1)).text = "Wide"
    table.cell(1, 2).merge(table.cell(2, 2)).text = "Tall"

    _hyperlink_paragraph(document)
    document.add_paragraph().add_run().add_picture(io.BytesIO(png))

    outer = document.add_table(rows=1, cols=2)
    outer.cell(0, 0).text = "Outer"
    nested = outer.cell(0, 1).add_table(rows=2, cols=2)
    for index, cell in enumerate(cell for row in nested.rows for cell in row.cells):
        cell.text = f"n{index + 1}"

    document.add_paragraph("The end.")
    document.save(str(path))


def _parse(path: Path) -> ParsedDocument:
    return parse_to_document(DocxParser(), path, ParseOptions(file_name=path.name))


@pytest.fixture(scope="module")
def png() -> bytes:
    return _png(40, 30)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory, png: bytes) -> Path:
    path = tmp_path_factory.mktemp("docx") / "sample.docx"
    build_sample(path, png)
    return path


def test_markdown_structure(sample: Path) -> None:
    assert _parse(sample).markdown == EXPECTED_MARKDOWN


def test_image_is_extracted_in_place(sample: Path, png: bytes) -> None:
    parsed = _parse(sample)
    assert len(parsed.images) == 1
    image = parsed.images[0]
    assert (image.ref, image.mime_type, image.width, image.height) == (
        "image-1.png",
        "image/png",
        40,
        30,
    )
    assert image.data == png
    assert "See [the website]" in parsed.markdown.split("![image](image-1.png)")[0]


def test_metadata(sample: Path) -> None:
    assert _parse(sample).metadata == {
        "title": "Quarterly Report",
        "author": "Ada Lovelace",
        "paragraph_count": "18",
        "table_count": "2",
        "image_count": "1",
    }


def test_missing_core_properties_give_no_invented_title(sample: Path, tmp_path: Path) -> None:
    path = tmp_path / "no-core.docx"
    with zipfile.ZipFile(sample) as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "docProps/core.xml":
                continue
            if info.filename == "_rels/.rels":
                data = re.sub(rb"<Relationship [^>]*core-properties[^>]*/>", b"", data)
            target.writestr(info, data)
    metadata = _parse(path).metadata
    assert "title" not in metadata
    assert "author" not in metadata
    assert metadata["table_count"] == "2"


def test_same_image_twice_is_one_image(tmp_path: Path, png: bytes) -> None:
    document = docx.Document()
    document.add_picture(io.BytesIO(png))
    document.add_paragraph("between")
    document.add_picture(io.BytesIO(png))
    path = tmp_path / "twice.docx"
    document.save(str(path))
    parsed = _parse(path)
    assert parsed.markdown == "![image](image-1.png)\n\nbetween\n\n![image](image-1.png)"
    assert [image.ref for image in parsed.images] == ["image-1.png"]


def test_tabs_and_line_breaks(tmp_path: Path) -> None:
    document = docx.Document()
    run = document.add_paragraph().add_run("Name\tValue")
    run.add_break()
    run.add_text("second line ")
    path = tmp_path / "breaks.docx"
    document.save(str(path))
    assert _parse(path).markdown == "Name\tValue\nsecond line"


def _run(text: str = "", **children: str) -> docx.oxml.xmlchemy.BaseOxmlElement:
    run = OxmlElement("w:r")
    for tag, value in children.items():
        child = OxmlElement(f"w:{tag}")
        if tag == "fldChar":
            child.set(qn("w:fldCharType"), value)
        else:
            child.text = value
        run.append(child)
    if text:
        node = OxmlElement("w:t")
        node.text = text
        run.append(node)
    return run


def test_field_codes_and_deleted_text_are_not_shown(tmp_path: Path) -> None:
    document = docx.Document()
    paragraph = document.add_paragraph("Page ")._p
    paragraph.append(_run(fldChar="begin"))
    paragraph.append(_run(instrText=" PAGE "))
    paragraph.append(_run(fldChar="separate"))
    paragraph.append(_run("3"))
    paragraph.append(_run(fldChar="end"))
    deleted = OxmlElement("w:del")
    deleted.append(_run(delText="old words"))
    paragraph.append(deleted)
    inserted = OxmlElement("w:ins")
    inserted.append(_run(" of 9"))
    paragraph.append(inserted)
    path = tmp_path / "fields.docx"
    document.save(str(path))
    assert _parse(path).markdown == "Page 3 of 9"


def test_cells_with_several_paragraphs_and_links(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Name"
    table.cell(0, 1).text = "Notes"
    table.cell(1, 0).text = "Ada"
    cell = table.cell(1, 1)
    cell.text = "first line"
    cell.add_paragraph("second | line")
    rid = document.part.relate_to("https://example.com/x", RT.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), rid)
    link.append(_run("docs"))
    cell.add_paragraph()._p.append(link)
    path = tmp_path / "cells.docx"
    document.save(str(path))
    assert _parse(path).markdown == (
        "| Name | Notes |\n| --- | --- |\n"
        "| Ada | first line<br>second \\| line<br>[docs](https://example.com/x) |"
    )


def test_zip_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    zeros = bytes(1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            for _ in range(300):
                member.write(zeros)
    assert path.stat().st_size < 2 << 20
    with pytest.raises(ParseError, match=r"limit|zip bomb"):
        _parse(path)


def test_truncated_file_is_refused(sample: Path, tmp_path: Path) -> None:
    data = sample.read_bytes()
    path = tmp_path / "truncated.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ParseError, match="not a valid zip"):
        _parse(path)


def test_random_bytes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "random.docx"
    path.write_bytes(os.urandom(4096))
    with pytest.raises(ParseError):
        _parse(path)


def test_zip_without_a_word_document_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "not a document")
    with pytest.raises(ParseError, match="cannot be opened as a Word document"):
        _parse(path)


def _compound_file(stream_name: str, payload: bytes) -> bytes:
    """A minimal OLE compound file (CFB v3) holding one stream of at least 4096 bytes."""
    end_of_chain, free, fat_sector, no_stream = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
    payload = payload.ljust(4096, b"\0")
    data_sectors = (len(payload) + 511) // 512
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(16)
    fields = (
        0x3E, 3, 0xFFFE,  # minor and major version (3: 512-byte sectors), byte order
        9, 6,  # sector and mini-sector size shifts
        0, 1, 1, 0,  # directory sectors (0 in v3), FAT sectors, first directory sector, txn
        0x1000, end_of_chain, 0, end_of_chain, 0,  # mini-stream cutoff; no mini FAT, no DIFAT
    )  # fmt: skip
    header += struct.pack("<HHHHH6xIIIIIIIII", *fields)
    header += struct.pack("<I", 0) + struct.pack("<I", free) * 108
    fat = [fat_sector, end_of_chain] + [2 + i + 1 for i in range(data_sectors - 1)]
    fat += [end_of_chain]
    fat_bytes = struct.pack(f"<{len(fat)}I", *fat).ljust(512, b"\xff")

    def entry(name: str, kind: int, child: int, start: int, size: int) -> bytes:
        encoded = (name + "\0").encode("utf-16-le") if name else b""
        return (
            encoded.ljust(64, b"\0")
            + struct.pack("<HBB", len(encoded), kind, 1)
            + struct.pack("<III", no_stream, no_stream, child)
            + bytes(16 + 4 + 16)
            + struct.pack("<IQ", start, size)
        )

    directory = entry("Root Entry", 5, 1, end_of_chain, 0)
    directory += entry(stream_name, 2, no_stream, 2, len(payload))
    directory += entry("", 0, no_stream, 0, 0) * 2
    return header + fat_bytes + directory + payload.ljust(data_sectors * 512, b"\0")


def test_password_protected_docx_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "secret.docx"
    path.write_bytes(_compound_file("EncryptedPackage", b"\x10\x00" + os.urandom(200)))
    with pytest.raises(ParseError, match="password-protected"):
        _parse(path)


def test_legacy_word_file_named_docx_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "old.docx"
    path.write_bytes(_compound_file("WordDocument", b"binary word"))
    with pytest.raises(ParseError, match="legacy binary format"):
        _parse(path)
