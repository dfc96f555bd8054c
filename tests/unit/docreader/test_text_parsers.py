"""Markdown and plain-text parsers, and the text decoding they share."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import codecs

import pytest

from server.docreader.errors import ParseError
from server.docreader.parsers.base import ParseOptions
from server.docreader.parsers.markdown import MarkdownParser
from server.docreader.parsers.plain_text import PlainTextParser
from server.docreader.parsers.text_decoding import decode_text
from tests.unit.docreader.images import data_uri, gif_bytes, png_bytes

OPTIONS = ParseOptions(file_name="doc")


def test_markdown_data_uri_images_become_refs() -> None:
    png = png_bytes(120, 90)
    gif = gif_bytes(70, 65)
    source = (
        f"# Pics\r\n\r\n![chart]({data_uri(png)} \"Chart title\")\r\n"
        f"![anim]({data_uri(gif, 'image/gif')})\n"
        f"![again]({data_uri(png)})\n"
        "![remote](https://example.com/a.png)\n"
        "![broken](data:image/png;base64,@@not-base64@@)\n"
    )
    document = MarkdownParser().parse(source.encode(), OPTIONS)
    assert document.markdown == (
        "# Pics\n\n![chart](image-1.png)\n![anim](image-2.gif)\n![again](image-1.png)\n"
        "![remote](https://example.com/a.png)\n"
        "![broken](data:image/png;base64,@@not-base64@@)\n"
    )
    assert [(i.ref, i.mime_type, i.width, i.height) for i in document.images] == [
        ("image-1.png", "image/png", 120, 90),
        ("image-2.gif", "image/gif", 70, 65),
    ]
    assert document.images[0].data == png
    assert document.images[1].data == gif


def test_simple_markdown_keeps_data_uris() -> None:
    source = f"![x]({data_uri(png_bytes(2, 2))})"
    document = MarkdownParser(extract_images=False).parse(source.encode(), OPTIONS)
    assert document.markdown == source
    assert document.images == []


def test_plain_text_is_kept_with_normalised_newlines() -> None:
    source = "line one\r\nline two\rline three\n\n  indented *not markdown*\n"
    document = PlainTextParser().parse(source.encode(), OPTIONS)
    assert document.markdown == "line one\nline two\nline three\n\n  indented *not markdown*\n"
    assert document.images == [] and document.metadata == {}


def test_cp1251_text_is_recognised() -> None:
    source = "Съешь же ещё этих мягких французских булок, да выпей чаю.\nВторая строка."
    document = PlainTextParser().parse(source.encode("cp1251"), OPTIONS)
    assert document.markdown == source


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (codecs.BOM_UTF8 + "привет".encode(), "привет"),
        ("hello wörld".encode("utf-16"), "hello wörld"),
        ("hello wörld".encode("utf-16-le"), "hello wörld"),
        ("hello wörld".encode("utf-16-be"), "hello wörld"),
        ("ünïcode ✓".encode("utf-32"), "ünïcode ✓"),
        ("Café crème “quoted” – déjà vu".encode("cp1252"), "Café crème “quoted” – déjà vu"),
        (b"latin \x81 control", "latin \x81 control"),
        (b"", ""),
    ],
)
def test_decoding(raw: bytes, expected: str) -> None:
    assert decode_text(raw) == expected


def test_binary_content_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="binary"):
        PlainTextParser().parse(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x03\x00>\x00", OPTIONS)
