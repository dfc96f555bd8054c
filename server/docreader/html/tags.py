"""Lexbor's numeric tag ids for the element names the HTML code dispatches on.

Reading ``node.tag_id`` costs a fraction of ``node.tag`` (no string is built per node), so
every hot loop compares ids. The ids of standard HTML/SVG names are fixed in lexbor's tag
table; they are read from lexbor itself here rather than written down. Unknown (custom) tag
names get ids per document, which never collide with the fixed ones.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

_DOCUMENT = LexborHTMLParser("")


def _node_ids() -> tuple[int, int]:
    """The ids lexbor gives comment and text nodes."""
    body = LexborHTMLParser("<body><!---->x").body
    comment = None if body is None else body.first_child
    text = None if comment is None else comment.next
    if comment is None or text is None:
        raise RuntimeError("lexbor did not parse a comment followed by text")
    return comment.tag_id, text.tag_id


COMMENT, TEXT = _node_ids()


def tag_id(name: str) -> int:
    return _DOCUMENT.create_node(name).tag_id


def tag_ids(names: tuple[str, ...]) -> frozenset[int]:
    return frozenset(map(tag_id, names))


def has_ancestor(element: LexborNode, tags: frozenset[int]) -> bool:
    """Whether an element above ``element`` has one of the tag ids ``tags``."""
    ancestor = element.parent
    while ancestor is not None:
        if ancestor.tag_id in tags:
            return True
        ancestor = ancestor.parent
    return False
