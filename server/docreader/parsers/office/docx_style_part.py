"""Reads a docx styles part for what StyleMap uses: its paragraph styles.

A styles part can be mostly table styles (python-docx's template holds 100 of them, 90% of its
350 kB), and parsing those would cost more than parsing the document itself. So the part's
bytes are cut down first: its prolog and root start tag (the namespace declarations and the
encoding stay as they were), the ``w:style`` elements whose type is paragraph, found by their
tags, and the root end tag. Only that is parsed. A part that does not cut cleanly (another
prefix for the WordprocessingML namespace, a style that is not closed, a cut that is not
well-formed) is parsed whole instead.
"""

from __future__ import annotations

import re

from server.docreader.errors import ParseError
from server.docreader.parsers.office.opc import OpcPackage
from server.docreader.parsers.office.wordml import Element

# A start tag's attributes: quoted values may hold ">", but nothing in a tag holds "<" (which
# also keeps a tag that never ends from being scanned past the next one).
_ATTRIBUTES = rb"""((?:[^<>"']++|"[^<"]*+"|'[^<']*+')*+)"""
_ROOT = re.compile(rb"<w:styles(?=[\s>])" + _ATTRIBUTES + rb">")
_DECLARES_W = re.compile(
    rb"""\sxmlns:w\s*=\s*(["'])http://schemas\.openxmlformats\.org/wordprocessingml/2006/main\1"""
)
# A style's start tag; group 1: its attributes (ending in "/" when the element is empty).
# Tags are first found with bytes.find, which is several times faster than a regex search.
_STYLE_START = b"<w:style"
_STYLE = re.compile(_STYLE_START + rb"(?=[\s/>])" + _ATTRIBUTES + rb">")
_PARAGRAPH_TYPE = re.compile(rb"\sw:type\s*=\s*([\"'])paragraph\1")
_STYLE_END = b"</w:style>"
_ROOT_END = b"</w:styles>"


def read_paragraph_styles(package: OpcPackage, part: str) -> Element:
    """The root of styles part ``part``, holding at least all of its paragraph styles."""
    data = package.read(part)
    cut = _paragraph_styles_only(data)
    if cut is not None:
        try:
            return package.parse(cut, part)
        except ParseError:
            pass  # Parsed whole below: a broken part is then reported as such.
    return package.parse(data, part)


def _paragraph_styles_only(data: bytes) -> bytes | None:
    root = _ROOT.search(data)
    if root is None or _DECLARES_W.search(root.group(1)) is None:
        return None
    pieces = [data[: root.end()]]
    position = root.end()
    while (start := data.find(_STYLE_START, position)) >= 0:
        style = _STYLE.match(data, start)
        if style is None:  # another tag starting alike, or one that never ends
            position = start + len(_STYLE_START)
            continue
        attributes = style.group(1)
        if attributes.endswith(b"/"):
            end = style.end()
        else:
            close = data.find(_STYLE_END, style.end())
            if close < 0:
                return None
            end = close + len(_STYLE_END)
        if _PARAGRAPH_TYPE.search(attributes):
            pieces.append(data[style.start() : end])
        position = end
    pieces.append(_ROOT_END)
    return b"".join(pieces)
