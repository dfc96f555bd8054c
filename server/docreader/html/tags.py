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


class AncestorCheck:
    """Whether an element above a node has one of the tag ids ``tags``, for many nodes of one
    tree: each node's answer is remembered, so a walk up stops where an earlier one passed
    and deep nesting (16k nested headers, say) costs linear time, not quadratic."""

    def __init__(self, tags: frozenset[int]) -> None:
        self._tags = tags
        # mem_id → whether that node or one above it has one of the tags
        self._known: dict[int, bool] = {}

    def __call__(self, element: LexborNode) -> bool:
        passed: list[int] = []
        found = False
        ancestor = element.parent
        while ancestor is not None:
            key = ancestor.mem_id
            known = self._known.get(key)
            if known is not None:
                found = known
                break
            passed.append(key)
            if ancestor.tag_id in self._tags:
                found = True
                break
            ancestor = ancestor.parent
        for key in passed:
            self._known[key] = found
        return found
