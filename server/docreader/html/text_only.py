"""Whole lists read in one call to lexbor, when every item holds nothing but text.

The items come as written; the converter collapses their whitespace (checked for all the
page's plain text at once).

A list is walked item by item otherwise; most lists on a page are plain text items, and for
those one ``text()`` call returns all of them, joined by a separator that cannot occur in
parsed text (the parser drops or replaces NUL). That is exact only under conditions checked
here: every child of the list is an ``<li>`` with no element or comment inside (lexbor's
element traversal shows each one), no text sits between the items, and each item has exactly
one text node that is not blank (one piece per item). The parser never leaves two text nodes
side by side, and the one edit of the tree (``cleanup.drop_boilerplate``) merges them again,
so an item never splits into two pieces.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

from server.docreader.html.tags import tag_id
from server.docreader.html.whitespace import PART_SEPARATOR

_LI = tag_id("li")


def text_items(list_element: LexborNode) -> list[str] | None:
    """The item texts, as written, of a list of text-only items none of which is blank (in
    lexbor's sense: ASCII whitespace only); None for any other list."""
    elements = list_element.traverse()
    next(elements)  # the list itself
    count = 0
    li = _LI
    for element in elements:
        if element.tag_id != li:
            return None
        count += 1
    if not count or list_element.text(deep=False, skip_empty=True):
        return None
    text = list_element.text(separator=PART_SEPARATOR, skip_empty=True)
    items = text.split(PART_SEPARATOR)
    return items if text and len(items) == count else None
