"""File types from content: magic numbers win over the extension, declared text types stay."""

from __future__ import annotations

import io
import subprocess
import wave
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
import xlwt
from PIL import Image

from server.docreader.sniff import sniff_file_type
from tests.support.ole_writer import write_ole

HTML = b"\n  <!DOCTYPE html>\n<html><head><title>t</title></head><body><p>hi</p></body></html>"
MHTML = (
    b"From: <Saved by Blink>\r\nSubject: A page\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/related;\r\n\ttype="text/html";\r\n\tboundary="----b"\r\n\r\n'
    b"------b\r\nContent-Type: text/html\r\n\r\n<html></html>\r\n------b--\r\n"
)
MPEG_FRAME = b"\xff\xfb\x90\x64" + b"\x00" * 413
ID3 = b"ID3\x04\x00\x00\x00\x00\x00\x0a" + b"\x00" * 10


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def image(format: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(buffer, format=format)
    return buffer.getvalue()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def word_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A python-docx .docx and the binary .doc LibreOffice converts it to."""
    folder = tmp_path_factory.mktemp("word")
    document = docx.Document()
    document.add_paragraph("Hello from Word")
    source = folder / "letter.docx"
    document.save(str(source))
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--headless",
            "--convert-to",
            "doc",
            "--outdir",
            str(folder / "out"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return source, folder / "out" / "letter.doc"


def test_an_ole_doc_named_docx_is_a_doc(word_files: tuple[Path, Path], tmp_path: Path) -> None:
    real_docx, real_doc = word_files
    renamed = write(tmp_path, "letter.docx", real_doc.read_bytes())

    assert sniff_file_type(renamed, "docx") == "doc"
    assert sniff_file_type(real_doc, "doc") == "doc"
    assert sniff_file_type(real_docx, "doc") == "docx"


def test_ole_streams_decide(tmp_path: Path) -> None:
    def ole(name: str, streams: dict[str, bytes]) -> Path:
        write_ole(tmp_path / name, streams)
        return tmp_path / name

    encrypted = ole("locked.docx", {"EncryptionInfo": b"\x04\x00", "EncryptedPackage": b"\x01"})
    slides = ole("talk.pptx", {"Current User": b"u", "PowerPoint Document": b"p"})
    excel95 = ole("old.xlsx", {"Book": b"b"})
    outlook = ole("mail.doc", {"__properties_version1.0": b"m"})
    whole = ole("whole.doc", {"WordDocument": b"w"})
    truncated = write(tmp_path, "cut.docx", whole.read_bytes()[:700])

    assert sniff_file_type(encrypted, "docx") == "docx", "the parser reports the password"
    assert sniff_file_type(encrypted, "xlsx") == "xlsx"
    assert sniff_file_type(slides, "pptx") == "ppt"
    assert sniff_file_type(excel95, "xlsx") == "xls"
    assert sniff_file_type(outlook, "doc") == "doc", "an OLE file of another kind"
    assert sniff_file_type(whole, "docx") == "doc"
    assert sniff_file_type(truncated, "docx") == "docx"


def test_ole_and_ooxml_spreadsheets_and_slides(tmp_path: Path) -> None:
    book = xlwt.Workbook()
    book.add_sheet("Sheet").write(0, 0, "x")
    book.save(str(tmp_path / "old.xls"))
    workbook, slides = tmp_path / "book.xlsx", tmp_path / "slides.pptx"
    openpyxl.Workbook().save(str(workbook))
    pptx.Presentation().save(str(slides))

    assert sniff_file_type(tmp_path / "old.xls", "xlsx") == "xls"
    assert sniff_file_type(slides, "xlsx") == "pptx"
    assert sniff_file_type(workbook, "docx") == "xlsx"
    assert sniff_file_type(workbook, "XLSX") == "xlsx"


def test_other_zip_containers(tmp_path: Path) -> None:
    epub = zipped({"mimetype": b"application/epub+zip", "META-INF/container.xml": b"<c/>"})
    zen = zipped({"content.json": b"[]", "manifest.json": b"{}", "metadata.json": b"{}"})
    xmind8 = zipped(
        {
            "content.xml": b'<xmap-content xmlns="urn:xmind:xmap:xmlns:content:2.0"/>',
            "META-INF/manifest.xml": b'<manifest xmlns="urn:xmind:xmap:xmlns:manifest:1.0"/>',
        }
    )
    odt = zipped(
        {
            "mimetype": b"application/vnd.oasis.opendocument.text",
            "content.xml": b"<office:document-content/>",
            "META-INF/manifest.xml": b"<manifest:manifest/>",
        }
    )

    assert sniff_file_type(write(tmp_path, "a.docx", epub), "docx") == "epub"
    assert sniff_file_type(write(tmp_path, "b.pdf", zen), "pdf") == "xmind"
    assert sniff_file_type(write(tmp_path, "c.zip", xmind8), "docx") == "xmind"
    assert sniff_file_type(write(tmp_path, "d.docx", odt), "docx") == "docx", "unknown zip"
    broken = write(tmp_path, "e.docx", b"PK\x03\x04" + b"\x00" * 100)
    assert sniff_file_type(broken, "docx") == "docx"


def test_images_by_signature(tmp_path: Path) -> None:
    jpeg, png, gif = image("JPEG"), image("PNG"), image("GIF")

    assert sniff_file_type(write(tmp_path, "a.png", jpeg), "png") == "jpg"
    assert sniff_file_type(write(tmp_path, "b.jpeg", jpeg), "jpeg") == "jpeg"
    assert sniff_file_type(write(tmp_path, "c.jpg", png), "jpg") == "png"
    assert sniff_file_type(write(tmp_path, "d.txt", gif), "txt") == "gif"


def test_audio_by_signature(tmp_path: Path) -> None:
    with wave.open(str(tmp_path / "tone.mp3"), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(b"\x00\x01" * 800)
    flac = b"fLaC\x80\x00\x00\x22" + b"\x00" * 34

    assert sniff_file_type(tmp_path / "tone.mp3", "mp3") == "wav"
    assert sniff_file_type(write(tmp_path, "a.wav", MPEG_FRAME * 2), "wav") == "mp3"
    assert sniff_file_type(write(tmp_path, "b.flac", ID3 + MPEG_FRAME), "flac") == "mp3"
    assert sniff_file_type(write(tmp_path, "c.mp3", ID3 + flac), "mp3") == "flac"
    assert sniff_file_type(write(tmp_path, "d.mp3", flac), "mp3") == "flac"
    assert sniff_file_type(write(tmp_path, "e.mp3", b"OggS\x00\x02" + b"\x00" * 40), "mp3") == "ogg"
    m4a = b"\x00\x00\x00\x18ftypM4A \x00\x00\x02\x00M4A isom" + b"\x00" * 16
    assert sniff_file_type(write(tmp_path, "f.mp3", m4a), "mp3") == "m4a"


def test_pdf_header_at_the_start_or_within_the_first_kib(tmp_path: Path) -> None:
    pdf = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"

    assert sniff_file_type(write(tmp_path, "a.docx", pdf), "docx") == "pdf"
    assert sniff_file_type(write(tmp_path, "b.txt", pdf), "txt") == "pdf"
    junk = b"\x00\x01\x02" * 100 + pdf
    assert sniff_file_type(write(tmp_path, "c.doc", junk), "doc") == "pdf"
    assert sniff_file_type(write(tmp_path, "d.doc", b"\x00" * 1100 + pdf), "doc") == "doc"


def test_text_content_under_a_binary_extension(tmp_path: Path) -> None:
    assert sniff_file_type(write(tmp_path, "a.pdf", HTML), "pdf") == "html"
    assert sniff_file_type(write(tmp_path, "b.doc", MHTML), "doc") == "mhtml"
    word_html = b'<html xmlns:w="urn:schemas-microsoft-com:office:word"><body>x</body></html>'
    assert sniff_file_type(write(tmp_path, "c.doc", word_html), "doc") == "html"
    xhtml = b'<?xml version="1.0"?>\n<!-- saved -->\n<!DOCTYPE html><html></html>'
    assert sniff_file_type(write(tmp_path, "d.docx", xhtml), "docx") == "html"
    utf16 = "\ufeff<html><body>привет</body></html>".encode("utf-16-le")
    assert sniff_file_type(write(tmp_path, "e.pdf", utf16), "pdf") == "html"
    text_pdf = b"This is a %PDF-1.4 file described in prose."
    assert sniff_file_type(write(tmp_path, "f.docx", text_pdf), "docx") == "pdf"
    assert sniff_file_type(write(tmp_path, "g.pdf", b"just some words"), "pdf") == "pdf"


def test_declared_text_types_keep_their_type_for_text(tmp_path: Path) -> None:
    assert sniff_file_type(write(tmp_path, "a.txt", b"plain words\n"), "txt") == "txt"
    assert sniff_file_type(write(tmp_path, "b.md", HTML), "md") == "md"
    assert sniff_file_type(write(tmp_path, "c.htm", HTML), "htm") == "htm"
    assert sniff_file_type(write(tmp_path, "d.html", MHTML), "html") == "html"
    assert sniff_file_type(write(tmp_path, "e.mhtml", HTML), "mhtml") == "mhtml"
    about_pdf = b"# Notes\n\nA PDF starts with %PDF-1.7 and ends with %%EOF.\n"
    assert sniff_file_type(write(tmp_path, "f.md", about_pdf), "md") == "md"
    # A UTF-16 byte-order mark is not an MPEG frame header.
    utf16 = "\ufeffhello".encode("utf-16-le")
    assert sniff_file_type(write(tmp_path, "g.txt", utf16), "txt") == "txt"
    assert sniff_file_type(write(tmp_path, "h.txt", b"ID3 tags are metadata"), "txt") == "txt"


def test_unknown_content_and_empty_files_keep_the_declared_type(tmp_path: Path) -> None:
    assert sniff_file_type(write(tmp_path, "a.txt", bytes(range(256)) * 8), "txt") == "txt"
    assert sniff_file_type(write(tmp_path, "b.docx", b""), "docx") == "docx"
    assert sniff_file_type(tmp_path / "missing.pdf", ".PDF") == "pdf"
