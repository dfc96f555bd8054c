"""What is not content in a page: code, widgets, navigation and page chrome; and the page's
own description (title, language, meta description) read before anything is dropped.

Dropping is done in C by ``etree.strip_elements`` so it costs next to nothing on big pages.
Page ``header``/``footer`` elements are site chrome unless they sit inside ``main`` or
``article``, where they usually hold the article's own title or notes.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

NEVER_CONTENT = (
    "script", "style", "noscript", "template", "nav", "aside", "form", "iframe", "object",
    "embed", "button", "select", "input", "textarea", "head",
)
_PAGE_CHROME = ("header", "footer")
_CONTENT_ROOTS = ("main", "article")
_DROPPED = "sluice-dropped"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def page_metadata(root: Any) -> dict[str, str]:
    metadata: dict[str, str] = {}
    head = root.find("head")
    if head is not None:
        title = " ".join((head.findtext("title") or "").split())
        if title:
            metadata["title"] = title
        for meta in head.iterchildren("meta"):
            if str(meta.get("name", "")).lower() == "description":
                description = " ".join(str(meta.get("content", "")).split())
                if description:
                    metadata["description"] = description
                break
    language = str(root.get("lang") or root.get(_XML_LANG) or "").strip()
    if language:
        metadata["language"] = language
    return metadata


def drop_boilerplate(root: Any, *, page_chrome: bool) -> None:
    """Remove never-content elements; with ``page_chrome``, also headers and footers that
    are not inside ``main``/``article``. The text after a removed element is kept."""
    if page_chrome:
        for element in root.iter(*_PAGE_CHROME):
            if next(element.iterancestors(*_CONTENT_ROOTS), None) is None:
                # Renamed, then removed in the same C pass as the rest: lxml refuses to write
                # back text holding control characters, so tails are never moved in Python.
                element.tag = _DROPPED
    etree.strip_elements(root, *NEVER_CONTENT, _DROPPED, with_tail=False)
