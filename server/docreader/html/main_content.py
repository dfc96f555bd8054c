"""Which element of a page holds its main content.

``<main>``, else the one top-level ``<article>``, else the densest block container (a simple
readability score), else ``<body>``; a ``main`` or ``article`` counts only when it holds text
and is not inside never-content (``cleanup.NEVER_CONTENT``, say a ``<main>`` in a ``<form>``).

Densest: starting from ``<body>``, the walk goes down into the child container holding at
least three quarters of all the page's text, skipping link-heavy containers (menus, link
lists: less than ``_MIN_CHARS_PER_LINK`` characters of text per link), and stops when no
child qualifies, or when going down would leave an ``<h1>`` behind (the page title often
sits just outside the text container). Text is measured by lexbor's own ``textContent``, one
call per candidate, so the cost stays a small fraction of the parse.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from server.docreader.html.cleanup import NEVER_CONTENT, drop_boilerplate
from server.docreader.html.loading import body
from server.docreader.html.tags import TEXT, AncestorCheck, tag_ids

# Elements that wrap page regions; paragraphs, headings and lists are content, not wrappers.
_CONTAINERS = tag_ids(
    (
        "div",
        "section",
        "article",
        "main",
        "table",
        "tbody",
        "tr",
        "td",
        "center",
        "font",
    )
)
# An article inside another one, or inside a menu or sidebar (related stories), does not
# count as one of the page's articles.
_NESTED_OR_DROPPED = tag_ids(("article",)) | NEVER_CONTENT
# Below this many characters there is no article to find: keep the whole body.
_MIN_TEXT = 200
_DOMINANT_SHARE = 0.75
_MIN_CHARS_PER_LINK = 25


def main_content(tree: LexborHTMLParser) -> LexborNode:
    for main in tree.tags("main"):  # lexbor's walk by tag name: cheaper than a selector
        if _has_text(main):
            return main
    nested_or_dropped = AncestorCheck(_NESTED_OR_DROPPED)
    articles = [a for a in tree.tags("article") if not nested_or_dropped(a)]
    if len(articles) == 1 and _has_text(articles[0]):
        return articles[0]
    page = body(tree)
    drop_boilerplate(page)  # text is measured without scripts, menus and page chrome
    return _densest(page)


def _densest(page: LexborNode) -> LexborNode:
    total = _text_size(page)
    if total < _MIN_TEXT:
        return page
    titles = page.css("h1")
    node = page
    while True:
        dominant = None
        for child in node.iter():
            if child.tag_id not in _CONTAINERS:
                continue
            size = _text_size(child)
            if size >= _DOMINANT_SHARE * total:
                if len(child.css("a")) * _MIN_CHARS_PER_LINK <= size:
                    dominant = child
                break  # at most one child can hold three quarters of the text
        if dominant is None or any(_leaves_behind(t, node, dominant) for t in titles):
            return node
        node = dominant


def _text_size(element: LexborNode) -> int:
    """Characters of text under ``element``, whitespace included."""
    return len(element.text_lexbor())


def _has_text(element: LexborNode) -> bool:
    """Whether ``element`` holds text other than whitespace, outside never-content elements
    (``element`` itself being in none); stops at the first such text."""
    in_never_content = AncestorCheck(NEVER_CONTENT)
    if in_never_content(element):
        return False
    return any(
        node.tag_id == TEXT and not node.is_empty_text_node and not in_never_content(node)
        for node in element.traverse(include_text=True)
    )


def _leaves_behind(title: LexborNode, node: LexborNode, child: LexborNode) -> bool:
    """``title`` is inside ``node`` but not inside ``child``."""
    node_id, child_id = node.mem_id, child.mem_id
    ancestor = title.parent
    while ancestor is not None:
        ancestor_id = ancestor.mem_id
        if ancestor_id == child_id:
            return False
        if ancestor_id == node_id:
            return True
        ancestor = ancestor.parent
    return False
