"""HTML and XHTML bytes → a lexbor document, with the character encoding decided here.

The encoding is chosen before parsing — byte-order mark, then the charset the transport
declared (an MHTML part header), then ``<meta charset>`` / ``<?xml encoding?>``, then valid
UTF-8, then the legacy code-page guess of ``decode_text`` — and lexbor is always handed UTF-8
(it would read undeclared legacy bytes as UTF-8). Lexbor parses as browsers do (the HTML
Standard's tree construction, tag soup included) with no size or depth caps of its own: input
size is capped before parsing, deep nesting in big pages is refused (``_refuse_deep_nesting``)
and the converter bounds its own recursion.
"""

from __future__ import annotations

import codecs
import re

import numpy
from lxml import etree
from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from server.docreader.errors import ParseError
from server.docreader.safety.xml import safe_xml_parser
from server.docreader.text.decoding import decode_text

_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_SNIFF_BYTES = 4096
_DECLARED_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)"""
    rb"""|<\?xml[^>]+?encoding\s*=\s*["']([A-Za-z0-9._:-]+)""",
    re.IGNORECASE,
)
# Up to this many tags ("<") a page is parsed without a nesting check (_refuse_deep_nesting).
_FEW_TAGS = 1 << 15
_LESS_THAN = ord("<")
# Elements whose text libxml2's HTML serializer writes unescaped: a "</script>" in their
# (XML-escaped) text would end them early when the serialized chapter is parsed as HTML.
_RAW_TEXT = ("script", "style")


def parse_html(data: bytes, *, declared_encoding: str | None = None) -> LexborHTMLParser:
    """The page parsed the way a browser would: ``html``, ``head`` and ``body`` always exist."""
    utf8 = _to_utf8(data, declared_encoding)
    _refuse_deep_nesting(utf8)
    return _parse_utf8(utf8)


def parse_xhtml(data: bytes) -> LexborHTMLParser:
    """An XHTML document (an EPUB chapter).

    Read as XML first, because an HTML parser reads XHTML's ``<script/>`` or ``<a/>`` as
    open tags that swallow the rest of the chapter; entities are never expanded
    (``safe_xml_parser``). The namespace-free tree is then written out as HTML (``<a></a>``,
    ``<br>``) for lexbor. Chapters that are not well-formed XML are read as tag soup.
    """
    try:
        root = etree.fromstring(data, safe_xml_parser())
    except etree.XMLSyntaxError:
        return parse_html(data)
    for element in root.iter():
        tag = element.tag
        if isinstance(tag, str) and tag[:1] == "{":
            element.tag = tag.partition("}")[2]
    etree.strip_elements(root, *_RAW_TEXT, with_tail=False)
    return _parse_utf8(etree.tostring(root, method="html", encoding="utf-8"))


def body(tree: LexborHTMLParser) -> LexborNode:
    """The ``<body>`` of a parsed page (the root element of a frameset page)."""
    element = tree.body or tree.root
    if element is None:  # lexbor always builds at least <html><head><body>
        raise ParseError("the HTML page cannot be parsed: lexbor built no document")
    return element


def _refuse_deep_nesting(data: bytes) -> None:
    """ParseError for a page of more than ``_FEW_TAGS`` tags nested deeper than libxml2 goes,
    before lexbor spends minutes on it.

    Lexbor's tree construction looks through the open elements for most tags, so its time
    grows with the nesting depth times the number of tags (100,000 nested ``<div>`` take a
    minute). Up to ``_FEW_TAGS`` tags the worst nesting still parses in a few seconds; a
    bigger page is first read by libxml2, which takes linear time and stops at 2048 levels
    (the most the lxml-based reader before lexbor read, too)."""
    codes = numpy.frombuffer(data, numpy.uint8)
    if int(numpy.count_nonzero(codes == _LESS_THAN)) <= _FEW_TAGS:
        return
    parser = etree.HTMLParser(no_network=True, huge_tree=True)
    try:
        etree.fromstring(data, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return  # libxml2 found no elements at all: nothing nests
    for error in parser.error_log:
        if error.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT and "depth" in error.message:
            raise ParseError(
                "the HTML page nests elements more than 2048 levels deep, which is refused "
                "(reading it would take too long)"
            )


def _parse_utf8(data: bytes) -> LexborHTMLParser:
    try:
        return LexborHTMLParser(data)
    except (SelectolaxError, RuntimeError) as err:  # lexbor out of memory
        raise ParseError(f"the HTML page cannot be parsed: {err}") from err


def _to_utf8(data: bytes, declared_encoding: str | None) -> bytes:
    if data.startswith(_BOMS):
        return decode_text(data).encode("utf-8")
    encoding = _codec(declared_encoding) or _in_page_codec(_sniff_charset(data))
    if encoding not in (None, "utf-8"):
        return data.decode(encoding, errors="replace").encode("utf-8")
    if data.isascii():  # valid UTF-8, told without decoding a copy of the page
        return data
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
