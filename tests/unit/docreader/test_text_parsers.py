"""Markdown and plain-text parsers, the text decoding they share, and the text limits."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import codecs
import time
import tracemalloc
from pathlib import Path

import pytest

from server.docreader.errors import ParseError
from server.docreader.parser_contract import ParsedDocument, ParseOptions, Parser, parse_to_document
from server.docreader.parsers.markdown import MarkdownParser
from server.docreader.parsers.plain_text import PlainTextParser
from server.docreader.safety.limits import ParseLimits
from server.docreader.text.decoding import decode_text
from tests.unit.docreader.images import data_uri, gif_bytes, png_bytes

OPTIONS = ParseOptions(file_name="doc")


def parse(
    tmp_path: Path, parser: Parser, content: bytes, options: ParseOptions = OPTIONS
) -> ParsedDocument:
    source = tmp_path / "input"
    source.write_bytes(content)
    return parse_to_document(parser, source, options)


def test_markdown_data_uri_images_become_refs(tmp_path: Path) -> None:
    png = png_bytes(120, 90)
    gif = gif_bytes(70, 65)
    source = (
        f'# Pics\r\n\r\n![chart]({data_uri(png)} "Chart title")\r\n'
        f"![anim]({data_uri(gif, 'image/gif')})\n"
        f"![again]({data_uri(png)})\n"
        "![remote](https://example.com/a.png)\n"
        "![broken](data:image/png;base64,@@not-base64@@)\n"
    )
    document = parse(tmp_path, MarkdownParser(), source.encode())
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


def test_simple_markdown_keeps_data_uris(tmp_path: Path) -> None:
    source = f"![x]({data_uri(png_bytes(2, 2))})"
    document = parse(tmp_path, MarkdownParser(extract_images=False), source.encode())
    assert document.markdown == source
    assert document.images == []


def test_a_big_pasted_image_is_not_a_long_line(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_line_chars=1000))
    image = png_bytes(400, 400) + b"\x00" * 4000  # a data URI far over the line limit
    source = f"text ![pasted]({data_uri(image)}) more text\n".encode()
    for parser in (MarkdownParser(), MarkdownParser(extract_images=False)):
        assert "pasted" in parse(tmp_path, parser, source, options).markdown
    with pytest.raises(ParseError, match="line 2 is longer than the line limit of 1000 characters"):
        parse(tmp_path, MarkdownParser(), b"ok\n" + b"x" * 1001, options)


def test_plain_text_is_kept_with_normalised_newlines(tmp_path: Path) -> None:
    source = "line one\r\nline two\rline three\n\n  indented *not markdown*\n"
    document = parse(tmp_path, PlainTextParser(), source.encode())
    assert document.markdown == "line one\nline two\nline three\n\n  indented *not markdown*\n"
    assert document.images == [] and document.metadata == {}


def test_cp1251_text_is_recognised(tmp_path: Path) -> None:
    source = "Съешь же ещё этих мягких французских булок, да выпей чаю.\nВторая строка."
    assert parse(tmp_path, PlainTextParser(), source.encode("cp1251")).markdown == source


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


def test_binary_content_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="binary"):
        parse(tmp_path, PlainTextParser(), b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x03\x00>\x00")


def test_size_limit(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_text_bytes=10))
    for parser in (PlainTextParser(), MarkdownParser()):
        with pytest.raises(ParseError, match="the file is 11 bytes, over the limit of 10 bytes"):
            parse(tmp_path, parser, b"0123456789\n", options)


def test_line_limit_counts_characters_and_names_the_line(tmp_path: Path) -> None:
    options = ParseOptions(limits=ParseLimits(max_line_chars=10))
    # Ten Cyrillic letters are 20 bytes but 10 characters: within the limit.
    fits = ("ок\r\n" + "я" * 10 + "\rend").encode()
    assert parse(tmp_path, PlainTextParser(), fits, options).markdown == "ок\n" + "я" * 10 + "\nend"
    too_long = b"short\r\nshort\n" + b"y" * 11 + b"\nshort"
    with pytest.raises(
        ParseError,
        match="line 3 is longer than the line limit of 10 characters: this is not a text document",
    ):
        parse(tmp_path, PlainTextParser(), too_long, options)


def test_a_200_mb_single_line_fails_fast_without_being_read_whole(tmp_path: Path) -> None:
    source = tmp_path / "one-line.txt"
    block = b"a" * (1 << 20)
    with source.open("wb") as out:
        for _ in range(200):
            out.write(block)
    options = ParseOptions(limits=ParseLimits(max_text_bytes=300 << 20))
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(ParseError, match=r"line 1 is longer than the line limit of 1048576"):
            parse_to_document(PlainTextParser(), source, options)
        elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 5
    assert peak < 16 << 20, f"the scan held {peak} bytes"
