"""MHTML parser: the saved page converted like HTML, its saved images linked and extracted."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import quopri
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, parse_to_document
from server.docreader.parsers.mhtml import MhtmlParser
from server.docreader.safety.limits import ParseLimits
from tests.unit.docreader.images import gif_bytes, png_bytes

PAGE = """<html><head><title>Сохранённая страница</title></head><body>
<nav>MENU</nav>
<main><h1>Заголовок</h1>
<p>Текст <img src="img/photo.png" alt="photo"> и <img src="cid:logo@site" alt="logo"></p>
<p><img src="https://elsewhere.example/remote.png" alt="remote"></p>
</main></body></html>"""


def html_part(html: str, charset: str) -> MIMEText:
    """The page in ``charset``, quoted-printable encoded as browsers save it."""
    part = MIMEText(html, "html", charset)
    del part["Content-Transfer-Encoding"]
    part.set_payload(quopri.encodestring(html.encode(charset)).decode("ascii"))
    part["Content-Transfer-Encoding"] = "quoted-printable"
    part["Content-Location"] = "https://site.example/articles/page.html"
    return part


def saved_page(path: Path, photo: bytes, logo: bytes, unused: bytes) -> Path:
    message = MIMEMultipart("related", type="text/html")
    message["Subject"] = "saved"
    message.attach(html_part(PAGE, "windows-1251"))
    photo_part = MIMEImage(photo, "png")
    photo_part["Content-Location"] = "https://site.example/articles/img/photo.png"
    message.attach(photo_part)
    logo_part = MIMEImage(logo, "gif")
    logo_part["Content-ID"] = "<logo@site>"
    message.attach(logo_part)
    unused_part = MIMEImage(unused, "png")
    unused_part["Content-Location"] = "https://site.example/background.png"
    message.attach(unused_part)
    path.write_bytes(message.as_bytes())
    return path


def parse(path: Path, options: ParseOptions | None = None) -> ParsedDocument:
    return parse_to_document(MhtmlParser(), path, options or ParseOptions(file_name=path.name))


def test_page_and_its_saved_images(tmp_path: Path) -> None:
    photo, logo = png_bytes(40, 30), gif_bytes(16, 16)
    document = parse(saved_page(tmp_path / "page.mhtml", photo, logo, png_bytes(5, 5)))
    assert document.markdown == (
        "# Заголовок\n\nТекст ![photo](image-1.png) и ![logo](image-2.gif)\n\n"
        "![remote](https://elsewhere.example/remote.png)"
    )
    assert [(i.ref, i.mime_type, i.width, i.height, i.data) for i in document.images] == [
        ("image-1.png", "image/png", 40, 30, photo),
        ("image-2.gif", "image/gif", 16, 16, logo),
    ]
    assert document.metadata == {"title": "Сохранённая страница"}


def test_a_message_without_a_page_is_refused(tmp_path: Path) -> None:
    message = MIMEMultipart("related")
    message.attach(MIMEImage(png_bytes(2, 2), "png"))
    path = tmp_path / "images-only.mhtml"
    path.write_bytes(message.as_bytes())
    with pytest.raises(ParseError, match="no text/html part"):
        parse(path)
    not_mime = tmp_path / "text.mhtml"
    not_mime.write_bytes(b"just some text, no headers at all")
    with pytest.raises(ParseError, match="no text/html part"):
        parse(not_mime)


def test_size_limit(tmp_path: Path) -> None:
    path = saved_page(tmp_path / "page.mhtml", png_bytes(2, 2), gif_bytes(2, 2), b"")
    options = ParseOptions(limits=ParseLimits(max_text_bytes=100))
    with pytest.raises(ParseError, match="over the limit of 100 bytes"):
        parse(path, options)
