"""WordprocessingML names (Clark notation) and small element helpers shared by the docx code."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
V = "{urn:schemas-microsoft-com:vml}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"

W_VAL = W + "val"

# Elements that only wrap content (content controls, custom XML, tracked insertions): their
# children are read as if they stood in the wrapper's place.
WRAPPERS = frozenset({W + "sdt", W + "sdtContent", W + "customXml", W + "ins", W + "smartTag"})

# lxml elements are untyped (no stubs); one alias keeps the signatures readable.
Element = Any


def children(element: Element, tag: str) -> Iterator[Element]:
    """Direct children named ``tag``, looking through content-control style wrappers."""
    for child in element.iterchildren():
        if child.tag == tag:
            yield child
        elif child.tag in WRAPPERS:
            yield from children(child, tag)


def body_blocks(element: Element) -> Iterator[Element]:
    """The paragraphs and tables of a body or cell, in order, through wrappers."""
    if all(element.find(wrapper) is None for wrapper in WRAPPERS):
        # The common case, filtered in C without a tag string per child.
        blocks: Iterator[Element] = element.iterchildren(W + "p", W + "tbl")
        return blocks
    return _blocks_through_wrappers(element)


def _blocks_through_wrappers(element: Element) -> Iterator[Element]:
    for child in element.iterchildren():
        tag = child.tag
        if tag in (W + "p", W + "tbl"):
            yield child
        elif tag in WRAPPERS:
            yield from _blocks_through_wrappers(child)


def int_val(element: Element | None, default: int = 0) -> int:
    """The integer ``w:val`` of ``element``, or ``default`` when absent or malformed."""
    if element is None:
        return default
    try:
        return int(element.get(W_VAL, default))
    except ValueError:
        return default
