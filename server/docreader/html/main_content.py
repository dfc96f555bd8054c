"""Which element of a page holds its main content.

``<main>``, else the one top-level ``<article>``, else the densest block container (a simple
readability score), else ``<body>``.

Densest: starting from ``<body>``, the walk goes down into the child container holding at
least three quarters of all the page's text, skipping link-heavy containers (menus, link
lists: less than ``_MIN_CHARS_PER_LINK`` characters of text per link), and stops when no
child qualifies, or when going down would leave an ``<h1>`` behind (the page title often
sits just outside the text container). Text is measured by libxml2's own serializer, one
call per candidate, so the cost stays a small fraction of the parse.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

# Elements that wrap page regions; paragraphs, headings and lists are content, not wrappers.
_CONTAINERS = (
    "div", "section", "article", "main", "table", "tbody", "tr", "td", "center", "font",
)
# Below this much text there is no article to find: keep the whole body.
_MIN_TEXT = 200
_DOMINANT_SHARE = 0.75
_MIN_CHARS_PER_LINK = 25
_COUNT_LINKS = etree.XPath("count(.//a)")


def main_content(root: Any) -> Any:
    body = root.find("body")
    if body is None:
        body = root
    for main in body.iter("main"):
        if _text_size(main):
            return main
    articles = [a for a in body.iter("article") if next(a.iterancestors("article"), None) is None]
    if len(articles) == 1 and _text_size(articles[0]):
        return articles[0]
    return _densest(body)


def _densest(body: Any) -> Any:
    total = _text_size(body)
    if total < _MIN_TEXT:
        return body
    titles = list(body.iter("h1"))
    node = body
    while True:
        dominant = None
        for child in node.iterchildren(*_CONTAINERS):
            size = _text_size(child)
            if size >= _DOMINANT_SHARE * total:
                if _COUNT_LINKS(child) * _MIN_CHARS_PER_LINK <= size:
                    dominant = child
                break  # at most one child can hold three quarters of the text
        if dominant is None or any(_leaves_behind(t, node, dominant) for t in titles):
            return node
        node = dominant


def _text_size(element: Any) -> int:
    """Bytes of text under ``element`` (UTF-8, whitespace included)."""
    return len(etree.tostring(element, method="text", encoding="utf-8", with_tail=False))


def _leaves_behind(title: Any, node: Any, child: Any) -> bool:
    """``title`` is inside ``node`` but not inside ``child``."""
    for ancestor in title.iterancestors():
        if ancestor is child:
            return False
        if ancestor is node:
            return True
    return False
