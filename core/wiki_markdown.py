"""The Markdown of a wiki page, shared by the ingest that synthesises it and the delete that
rebuilds it without one knowledge: a page is its title, a body (the model's synthesis, or
the remaining sources' contributions in order) and a "Sources" section listing every
contributing knowledge as ``[title](knowledge://id)``. Links to other pages are
``[title](wiki://slug)``; slugs are derived from titles here, so the same topic named by two
documents lands on one page."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

# wiki_pages.slug is String(255).
MAX_SLUG_CHARS = 200
_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)
_PAGE_LINK = re.compile(r"\]\(wiki://([^)\s]+)\)")
SOURCES_HEADING = "## Sources"


def slugify(title: str) -> str:
    """Lower-case words joined by '-', letters of every script kept ("" for no word)."""
    folded = unicodedata.normalize("NFKC", title).casefold()
    return _NOT_WORD.sub("-", folded).strip("-_")[:MAX_SLUG_CHARS].strip("-_")


def page_links(content: str) -> list[str]:
    """The slugs the Markdown links to with ``wiki://``, sorted, without repeats."""
    return sorted({slugify(slug) for slug in _PAGE_LINK.findall(content)} - {""})


def compose_page(title: str, body: str, sources: Sequence[tuple[str, str]]) -> str:
    """The page's Markdown: ``# title``, ``body``, and the sources, (knowledge id, title)
    pairs, each linked."""
    lines = [
        f"- [{name or knowledge_id}](knowledge://{knowledge_id})" for knowledge_id, name in sources
    ]
    return f"# {title}\n\n{body.strip()}\n\n{SOURCES_HEADING}\n\n" + "\n".join(lines) + "\n"


def page_body(content: str) -> str:
    """The body of a page's Markdown (without its title line and sources section)."""
    body = content.split(f"\n{SOURCES_HEADING}\n", 1)[0]
    if body.startswith("# "):
        body = body.split("\n", 1)[1] if "\n" in body else ""
    return body.strip()


def rebuilt_body(contributions: Iterable[str]) -> str:
    """A body made of the contributions alone (what a delete leaves until the model
    synthesises the page again)."""
    return "\n\n".join(part.strip() for part in contributions if part.strip())
