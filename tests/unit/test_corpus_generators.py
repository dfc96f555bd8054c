"""The shared corpus and hostile-file generators write what they promise: the right format
(magic bytes, readable by the format's own library), the known sentences, and for hostile
files the hostile property itself (bomb sizes, entity chains, encryption flags)."""

from __future__ import annotations

import json
import subprocess
import wave
import zipfile
import zlib
from collections.abc import Iterator
from email import message_from_bytes
from pathlib import Path

import docx
import olefile
import openpyxl
import pypdfium2
import pytest
import xlrd
from lxml import etree
from PIL import Image
from pptx import Presentation

from tests.support.corpus import GATE_EXTENSIONS, CorpusFile, build_corpus, build_large_files
from tests.support.corpus_large import build_text_pdf
from tests.support.hostile import BOMB_MEMBER_BYTES, HUGE_TEXT_BYTES, Hostile, build_hostile

_ZIP = b"PK\x03\x04"
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MAGIC = {
    "pdf": b"%PDF-",
    "png": b"\x89PNG\r\n\x1a\n",
    "jpg": b"\xff\xd8\xff",
    "jpeg": b"\xff\xd8\xff",
    "gif": b"GIF8",
    "doc": _OLE,
    "xls": _OLE,
    "ppt": _OLE,
    "docx": _ZIP,
    "xlsx": _ZIP,
    "pptx": _ZIP,
    "epub": _ZIP,
    "xmind": _ZIP,
}
_ZIP_PART = {
    "docx": "word/document.xml",
    "xlsx": "xl/workbook.xml",
    "pptx": "ppt/presentation.xml",
    "epub": "META-INF/container.xml",
    "xmind": "content.json",
}
_OLE_STREAM = {"doc": "WordDocument", "xls": "Workbook", "ppt": "PowerPoint Document"}
_TEXT = ("txt", "md", "markdown", "html", "htm", "csv", "json")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CorpusFile]:
    return {f.file_type: f for f in build_corpus(tmp_path_factory.mktemp("corpus"))}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Hostile]]:
    files = build_hostile(tmp_path_factory.mktemp("hostile"))
    yield files
    for item in files.values():  # pytest keeps old tmp dirs: do not keep 200 MB there
        item.path.unlink(missing_ok=True)


def test_one_file_per_gate_extension_with_unique_sentences(
    corpus: dict[str, CorpusFile],
) -> None:
    assert list(corpus) == list(GATE_EXTENSIONS)
    for kind, item in corpus.items():
        assert item.path.suffix == f".{kind}" and item.path.stat().st_size > 0
        assert len(item.sentences) >= 2 or kind == "wav"
    sentences = [s for item in corpus.values() for s in item.sentences]
    assert len(sentences) == len(set(sentences))
    assert not (corpus["doc"].path.parent / ".lo-profile").exists()


@pytest.mark.parametrize("kind", GATE_EXTENSIONS)
def test_each_file_is_of_its_format(corpus: dict[str, CorpusFile], kind: str) -> None:
    path = corpus[kind].path
    head = path.read_bytes()[:64]
    assert head.startswith(_MAGIC.get(kind, b""))
    if kind in _ZIP_PART:
        with zipfile.ZipFile(path) as archive:
            assert _ZIP_PART[kind] in archive.namelist()
            if kind == "epub":
                assert archive.namelist()[0] == "mimetype"
                assert archive.read("mimetype") == b"application/epub+zip"
    if kind in _OLE_STREAM:
        with olefile.OleFileIO(str(path)) as ole:
            assert ole.exists(_OLE_STREAM[kind])
    if kind == "wav":
        with wave.open(str(path)) as audio:
            assert audio.getnframes() > 0 and audio.getframerate() == 16_000
    if kind in ("png", "jpg", "jpeg", "gif"):
        with Image.open(path) as image:
            assert image.width >= 400


def test_text_formats_hold_sentences_and_markdown_holds_its_markers(
    corpus: dict[str, CorpusFile],
) -> None:
    for kind in _TEXT:
        text = corpus[kind].path.read_text(encoding="utf-8")
        assert all(s in text for s in corpus[kind].sentences), kind
    for kind in ("md", "markdown"):
        text = corpus[kind].path.read_text(encoding="utf-8")
        assert all(mark in text for mark in corpus[kind].fidelity)
    json.loads(corpus["json"].path.read_text(encoding="utf-8"))


def _docx_text(path: Path) -> str:
    document = docx.Document(str(path))
    cells = [c.text for t in document.tables for row in t.rows for c in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


def _pptx_text(path: Path) -> str:
    texts = []
    for slide in Presentation(str(path)).slides:
        texts += [shape.text_frame.text for shape in slide.shapes if shape.has_text_frame]
        texts.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(texts)


def test_binary_formats_hold_their_sentences(corpus: dict[str, CorpusFile]) -> None:
    pdf = pypdfium2.PdfDocument(str(corpus["pdf"].path))
    pages = [page.get_textpage().get_text_range() for page in pdf]
    pdf.close()
    assert len(pages) == 2 and corpus["pdf"].sentences[1] in pages[1]
    texts = {
        "pdf": "\n".join(pages),
        "docx": _docx_text(corpus["docx"].path),
        "pptx": _pptx_text(corpus["pptx"].path),
        "xlsx": "\n".join(
            str(v)
            for ws in openpyxl.load_workbook(corpus["xlsx"].path).worksheets
            for row in ws.iter_rows(values_only=True)
            for v in row
        ),
        "xls": "\n".join(
            str(v)
            for sheet in xlrd.open_workbook(str(corpus["xls"].path)).sheets()
            for r in range(sheet.nrows)
            for v in sheet.row_values(r)
        ),
    }
    for kind in ("doc", "ppt"):  # LibreOffice stores the text as UTF-16 in the main stream
        with olefile.OleFileIO(str(corpus[kind].path)) as ole:
            texts[kind] = ole.openstream(_OLE_STREAM[kind]).read().decode("utf-16-le", "ignore")
    for kind in ("epub", "xmind"):
        with zipfile.ZipFile(corpus[kind].path) as archive:
            texts[kind] = "\n".join(
                archive.read(n).decode()
                for n in archive.namelist()
                if n.endswith((".xhtml", ".json"))
            )
    for kind, text in texts.items():
        assert all(s in text for s in corpus[kind].sentences), kind
    assert openpyxl.load_workbook(corpus["xlsx"].path).sheetnames == ["Summary", "Details"]
    assert xlrd.open_workbook(str(corpus["xls"].path)).sheet_names() == ["Summary", "Details"]


def test_mhtml_is_a_related_message_with_page_and_picture(corpus: dict[str, CorpusFile]) -> None:
    message = message_from_bytes(corpus["mhtml"].path.read_bytes())
    assert message.get_content_type() == "multipart/related"
    parts = {part.get_content_type(): part for part in message.walk()}
    page = parts["text/html"].get_payload(decode=True)
    assert isinstance(page, bytes)
    assert all(s in page.decode() for s in corpus["mhtml"].sentences)
    picture = parts["image/png"]
    png = picture.get_payload(decode=True)
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG")
    assert picture["Content-Location"] in page.decode()


@pytest.mark.parametrize("kind", ["png", "jpg", "jpeg", "gif"])
def test_images_are_readable_by_ocr(corpus: dict[str, CorpusFile], kind: str) -> None:
    read = subprocess.run(
        ["tesseract", str(corpus[kind].path), "stdout"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert all(s in read for s in corpus[kind].sentences)


def test_large_files_scaled_down(tmp_path: Path) -> None:
    files = {f.file_type: f.path for f in build_large_files(tmp_path, scale=0.04)}
    assert list(files) == ["pdf", "xlsx", "docx", "html"]
    pdf = pypdfium2.PdfDocument(str(files["pdf"]))
    assert len(pdf) == 2
    pdf.close()
    sheet = openpyxl.load_workbook(files["xlsx"], read_only=True).worksheets[0]
    rows = list(sheet.iter_rows(values_only=True))
    assert len(rows) == 401 and len(rows[0]) == 10
    document = docx.Document(str(files["docx"]))
    assert len(document.paragraphs) == 100 and len(document.tables) == 1
    assert files["html"].stat().st_size >= 40_000
    etree.fromstring(files["html"].read_bytes(), etree.HTMLParser())


def _pdf_pages_and_rules(path: Path) -> tuple[list[str], int]:
    pdf = pypdfium2.PdfDocument(str(path))
    pages = [page.get_textpage().get_text_range() for page in pdf]
    paths = [pypdfium2.raw.FPDF_PAGEOBJ_PATH]
    rules = sum(len(list(page.get_objects(filter=paths))) for page in pdf)
    pdf.close()
    return pages, rules


def test_text_pdf_scaled_down(tmp_path: Path) -> None:
    file = build_text_pdf(tmp_path, scale=0.04)
    assert file.file_type == "pdf" and file.description == "2 text-only pages"
    assert file.path.read_bytes().startswith(_MAGIC["pdf"])
    pages, rules = _pdf_pages_and_rules(file.path)
    assert len(pages) == 2 and rules == 0  # prose and headings: no table rules
    assert all(page.startswith(f"Section {n}: ") for n, page in enumerate(pages, 1))
    # Seeded: every build writes the same text.
    (tmp_path / "again").mkdir()
    assert _pdf_pages_and_rules(build_text_pdf(tmp_path / "again", scale=0.04).path) == (pages, 0)


def test_zip_bombs_are_small_and_inflate_a_gigabyte(hostile: dict[str, Hostile]) -> None:
    for name in ("docx_zip_bomb", "xlsx_zip_bomb"):
        bomb = hostile[name]
        assert bomb.path.stat().st_size <= 2 << 20
        with zipfile.ZipFile(bomb.path) as archive:
            info = archive.getinfo(bomb.hint)
            assert info.file_size > 0.99 * BOMB_MEMBER_BYTES
            assert info.file_size / info.compress_size > 900
            with archive.open(info) as member:
                head = member.read(1 << 20)
            assert head.startswith(b"<?xml") and head.endswith(b"0" * 1000)
    # One whole member read back: the deflate stream and the CRC are valid.
    with zipfile.ZipFile(hostile["docx_zip_bomb"].path) as archive:
        assert archive.testzip() is None


def test_entity_bombs_declare_the_entity_chain(hostile: dict[str, Hostile]) -> None:
    parts = {"epub_entity_bomb": "OEBPS/content.opf", "docx_entity_bomb": "word/document.xml"}
    for name, part in parts.items():
        with zipfile.ZipFile(hostile[name].path) as archive:
            xml = archive.read(part)
        doctype, body = xml.split(b"]>\n")
        assert b'<!ENTITY lol9 "&lol8;' in doctype and b"&lol9;" in body
        # Well-formed apart from the entity: only expanding it is the attack (libxml2 itself
        # refuses the whole document for its amplification factor).
        etree.fromstring(body.replace(b"&lol9;", b"lol"))


def test_png_bomb_declares_nine_hundred_million_pixels(hostile: dict[str, Hostile]) -> None:
    path = hostile["png_bomb"].path
    data = path.read_bytes()
    assert len(data) < 200_000
    with pytest.raises(Image.DecompressionBombError):
        Image.open(path)
    idat_length = int.from_bytes(data[33:37], "big")
    assert data[37:41] == b"IDAT"
    inflated = zlib.decompressobj()
    total = 0
    chunk = data[41 : 41 + idat_length]
    for start in range(0, len(chunk), 4096):
        total += len(inflated.decompress(chunk[start : start + 4096]))
    assert total == 30_000 * (1 + 30_000 // 8)  # a filter byte + 3750 bytes a row


def test_text_bombs(hostile: dict[str, Hostile]) -> None:
    nested = hostile["nested_json"].path.read_bytes()
    assert nested == b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(nested)
    path = hostile["huge_single_line_text"].path
    assert path.stat().st_size == HUGE_TEXT_BYTES
    with path.open("rb") as text:
        while block := text.read(8 << 20):
            assert b"\n" not in block and b"\r" not in block


def test_truncated_and_random_files(hostile: dict[str, Hostile]) -> None:
    for name in ("truncated_docx", "truncated_xlsx"):
        assert hostile[name].path.read_bytes().startswith(_ZIP)
        assert not zipfile.is_zipfile(hostile[name].path)
    with pytest.raises(pypdfium2.PdfiumError):
        pypdfium2.PdfDocument(str(hostile["truncated_pdf"].path))
    for name in ("random_pdf", "random_docx"):
        head = hostile[name].path.read_bytes()[:8]
        assert not any(head.startswith(magic) for magic in (_ZIP, _OLE, b"%PDF"))


def test_password_protected_files(hostile: dict[str, Hostile]) -> None:
    locked = str(hostile["encrypted_pdf"].path)
    with pytest.raises(pypdfium2.PdfiumError, match="password"):
        pypdfium2.PdfDocument(locked)
    assert len(pypdfium2.PdfDocument(locked, password="heron-user")) == 1
    for name in ("encrypted_docx", "encrypted_xlsx"):
        with olefile.OleFileIO(str(hostile[name].path)) as ole:
            assert sorted(ole.listdir()) == [["EncryptedPackage"], ["EncryptionInfo"]]
            info = ole.openstream("EncryptionInfo").read()
        assert info[:4] == b"\x04\x00\x04\x00" and b"<encryption " in info
    with zipfile.ZipFile(hostile["encrypted_epub"].path) as archive:
        assert archive.read("mimetype") == b"application/epub+zip"
        assert all(i.flag_bits & 1 for i in archive.infolist() if i.filename != "mimetype")
        with pytest.raises(RuntimeError, match="encrypted"):
            archive.read("OEBPS/content.opf")
    assert all(h.hint and h.hint == h.hint.lower() for h in hostile.values())
