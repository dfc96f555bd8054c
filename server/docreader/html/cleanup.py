"""What is not content in a page: code, widgets, navigation and page chrome; and the page's
own description (title, language, meta description) read before anything is dropped.

The converter skips never-content elements wherever it meets them, so the tree is only
changed when the main content has to be found by measuring text (``main_content``): one pass
over the body's elements (lexbor's own traversal, a tag id compared per element) finds them,
and each is unlinked from the tree, its subtree with it. Page ``header``/``footer`` elements
are site chrome unless they sit inside ``main`` or ``article``, where they usually hold the
article's own title or notes.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from server.docreader.html.tags import AncestorCheck, tag_id, tag_ids

NEVER_CONTENT = tag_ids(
    (
        "script",
        "style",
        "noscript",
        "template",
        "nav",
        "aside",
        "form",
        "iframe",
        "object",
        "embed",
        "button",
        "select",
        "input",
        "textarea",
    )
)
_PAGE_CHROME = tag_ids(("header", "footer"))
_CONTENT_ROOTS = tag_ids(("main", "article"))
_TITLE, _META = tag_id("title"), tag_id("meta")
_ASIDE = tag_id("aside")
# An aside marked as a note (EPUB 3's `epub:type`, DPUB-ARIA's `role`) is the document's own
# text, a footnote or endnote, not a sidebar: it is kept.
_NOTE_KINDS = frozenset(
    (
        "footnote",
        "endnote",
        "rearnote",
        "note",
        "doc-footnote",
        "doc-endnote",
        "doc-note",
    )
)


def is_note(element: LexborNode) -> bool:
    """An ``aside`` that holds a footnote or endnote."""
    attributes = element.attrs
    kinds = f"{attributes.get('epub:type') or ''} {attributes.get('role') or ''}"
    return any(kind in _NOTE_KINDS for kind in kinds.lower().split())


def page_metadata(tree: LexborHTMLParser) -> dict[str, str]:
    metadata: dict[str, str] = {}
    head = tree.head
    titled = described = False
    for child in () if head is None else head.iter():
        tag = child.tag_id
        if tag == _TITLE and not titled:
            titled = True
            title = " ".join(child.text().split())
            if title:
                metadata["title"] = title
        elif tag == _META and not described:
            attributes = child.attrs
            if (attributes.get("name") or "").lower() == "description":
                described = True
                description = " ".join((attributes.get("content") or "").split())
                if description:
                    metadata["description"] = description
    root = tree.root
    if root is not None:
        attributes = root.attrs
        language = (attributes.get("lang") or attributes.get("xml:lang") or "").strip()
        if language:
            metadata["language"] = language
    return metadata


def drop_boilerplate(body: LexborNode) -> None:
    """Remove never-content elements from ``body``, and headers and footers that are not
    inside ``main``/``article``."""
    dropped: list[LexborNode] = []
    chrome: list[LexborNode] = []
    for element in body.traverse():
        tag = element.tag_id
        if tag in NEVER_CONTENT:
            if tag != _ASIDE or not is_note(element):
                dropped.append(element)
        elif tag in _PAGE_CHROME:
            chrome.append(element)
    in_content = AncestorCheck(_CONTENT_ROOTS)
    dropped.extend(element for element in chrome if not in_content(element))
    for element in dropped:
        # Unlinked, not freed: an element may sit inside another one dropped before it, and
        # the document's memory is released as a whole.
        element.decompose(recursive=False)
    if dropped:
        # The text before and after a dropped element must be one text node again: the
        # parser never leaves two side by side, and the bulk reads count on it (text_only).
        body.merge_text_nodes()
