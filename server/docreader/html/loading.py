"""HTML and XHTML bytes → an lxml tree, with the character encoding decided here.

libxml2 falls back to latin-1 for an HTML page without a ``<meta charset>``, which garbles
UTF-8, so the encoding is chosen before parsing — byte-order mark, then the charset the
transport declared (an MHTML part header), then ``<meta charset>`` / ``<?xml encoding?>``,
then valid UTF-8, then the legacy code-page guess of ``decode_text`` — and libxml2 is always
handed UTF-8. ``huge_tree`` is on because without it libxml2 silently truncates the page at
the first text node over 10 MB (a big inline script); input size is capped before parsing.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from lxml import etree

from server.docreader.errors import ParseError
from server.docreader.parsers.text_decoding import decode_text
from server.docreader.safety.xml import safe_xml_parser

_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_SNIFF_BYTES = 4096
_DECLARED_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)"""
    rb"""|<\?xml[^>]+?encoding\s*=\s*["']([A-Za-z0-9._:-]+)""",
    re.IGNORECASE,
)
_EMPTY_PAGE = b"<html><body></body></html>"


def parse_html(data: bytes, *, declared_encoding: str | None = None) -> Any:
    """The ``<html>`` element of a page parsed the way a browser would, tag soup included."""
    utf8 = _to_utf8(data, declared_encoding)
    if not utf8.strip():
        utf8 = _EMPTY_PAGE
    # etree's parser, not lxml.html's: its Python element-class lookup per node would cost
    # more than the parse itself.
    parser = etree.HTMLParser(
        encoding="utf-8", no_network=True, remove_comments=True, remove_pis=True,
        huge_tree=True,
    )
    try:
        root = etree.fromstring(utf8, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as err:
        raise ParseError(f"the HTML page cannot be parsed: {err}") from err
    return root if root is not None else etree.fromstring(_EMPTY_PAGE, parser)


def parse_xhtml(data: bytes) -> Any:
    """An XHTML document (an EPUB chapter) with its namespaces stripped.

    Parsed as XML first, because the HTML parser reads XHTML's ``<script/>`` or ``<a/>`` as
    open tags that swallow the rest of the chapter; chapters that are not well-formed XML
    are read as tag soup. Entities are never expanded (``safe_xml_parser``).
    """
    try:
        root = etree.fromstring(data, safe_xml_parser())
    except etree.XMLSyntaxError:
        return parse_html(data)
    for element in root.iter():
        tag = element.tag
        if isinstance(tag, str) and tag[:1] == "{":
            element.tag = tag.partition("}")[2]
    return root


def _to_utf8(data: bytes, declared_encoding: str | None) -> bytes:
    if data.startswith(_BOMS):
        return decode_text(data).encode("utf-8")
    encoding = _codec(declared_encoding) or _in_page_codec(_sniff_charset(data))
    if encoding not in (None, "utf-8"):
        return data.decode(encoding, errors="replace").encode("utf-8")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        # Declared UTF-8 with a few bad bytes stays UTF-8; undeclared bytes get the guess.
        text = data.decode("utf-8", errors="replace") if encoding else decode_text(data)
        return text.encode("utf-8")
    return data


def _sniff_charset(data: bytes) -> str | None:
    match = _DECLARED_CHARSET.search(data[:_SNIFF_BYTES])
    if match is None:
        return None
    return (match.group(1) or match.group(2)).decode("ascii")


def _codec(name: str | None) -> str | None:
    """Python's name for a declared charset; None when unknown."""
    if not name:
        return None
    try:
        codec = codecs.lookup(name).name
    except (LookupError, ValueError):  # unknown, or not even a name (NUL bytes)
        return None
    return "utf-8" if codec.startswith("utf-8") else codec


def _in_page_codec(name: str | None) -> str | None:
    """A page that declares UTF-16 inside ASCII-readable bytes is really UTF-8, as browsers
    assume (real UTF-16 pages start with a byte-order mark)."""
    codec = _codec(name)
    return "utf-8" if codec is not None and codec.startswith(("utf-16", "utf-32")) else codec
