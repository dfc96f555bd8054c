"""What the synthesis model is asked for a wiki, and its answers read back (JSON schema
structured output, like every enrichment).

Two questions. ``ask_topics``: a document's main entities and topics (at most
``MAX_TOPICS``), each with what the document says about it (its contribution) and, when it
is a page the wiki already has, that page's slug. ``ask_page``: a page's body written from
its current body and new contributions, in Markdown, linking other pages as
``[title](wiki://slug)``; its sources section is added by ``core.wiki_markdown``, never by
the model. A malformed answer (JSON of another shape) gives no topics, or no body — then
the page is the contributions in order, so nothing a document said is lost."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.wiki_markdown import rebuilt_body, slugify
from workers.models.protocols import ChatMessage, ChatModel

# What the model reads of a document: its summary and the start of its text.
DOCUMENT_BUDGET_CHARS = 12_000
# Pages the model is shown to reuse and link to.
CATALOG_LIMIT = 100
MAX_TOPICS = 5
# A page body stays readable; its contributions are kept apart in full.
PAGE_BUDGET_CHARS = 16_000
_TOPIC_TOKENS = 4_096
_PAGE_TOKENS = 4_096

TOPICS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "topics": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "existing_slug": {"type": "string"},
                    "contribution": {"type": "string"},
                },
                "required": ["title", "existing_slug", "contribution"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["topics"],
    "additionalProperties": False,
}

PAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"body": {"type": "string"}},
    "required": ["body"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Topic:
    # The page's slug (an existing page's, or one made from the title).
    slug: str
    title: str
    contribution: str


def ask_topics(
    model: ChatModel, title: str, text: str, catalog: Sequence[tuple[str, str]]
) -> list[Topic]:
    """The document's topics, each on the page it belongs to (ModelError when the model
    fails)."""
    pages = "\n".join(f"- {slug}: {name}" for slug, name in catalog) or "(none yet)"
    instructions = (
        "You maintain a wiki built from a knowledge base's documents: one page per main "
        f"entity or topic. Name the document's main entities or topics (at most {MAX_TOPICS})"
        " and, for each, write in Markdown what this document says about it: facts, figures "
        "and relations, in the document's language, without inventing anything. When a topic"
        " is one of the wiki's existing pages, give that page's slug as existing_slug, else "
        'an empty string. Answer JSON: {"topics": [{"title": "...", "existing_slug": "...", '
        '"contribution": "..."}]}.'
    )
    user = f"Existing pages:\n{pages}\n\nDocument: {title}\n\n{text[:DOCUMENT_BUDGET_CHARS]}"
    answer = model.complete(
        [ChatMessage("system", instructions), ChatMessage("user", user)],
        json_schema=TOPICS_SCHEMA,
        max_tokens=_TOPIC_TOKENS,
    )
    return read_topics(answer, {slug for slug, _ in catalog})


def read_topics(answer: str, existing: set[str]) -> list[Topic]:
    parsed = json.loads(answer)
    raw = parsed.get("topics") if isinstance(parsed, dict) else None
    topics: dict[str, Topic] = {}
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        name = " ".join(str(item.get("title") or "").split())
        contribution = str(item.get("contribution") or "").strip()
        reused = str(item.get("existing_slug") or "").strip()
        slug = reused if reused in existing else slugify(name)
        if slug and name and contribution and slug not in topics:
            topics[slug] = Topic(slug=slug, title=name, contribution=contribution)
    return list(topics.values())[:MAX_TOPICS]


def ask_page(
    model: ChatModel,
    title: str,
    current_body: str,
    contributions: Sequence[tuple[str, str]],
    catalog: Sequence[tuple[str, str]],
) -> str:
    """The page's body merging ``contributions`` ((document title, text) pairs) into
    ``current_body``; the contributions in order when the answer has none."""
    pages = "\n".join(f"- [{name}](wiki://{slug})" for slug, name in catalog) or "(none)"
    instructions = (
        "You write one page of a wiki in Markdown. Merge the new material into the page's "
        "current text: keep everything the current text says unless the new material "
        "corrects it, remove repetition, organise it under headings, and write in the "
        "material's language. Link other pages of the wiki where they are mentioned, with "
        "exactly the links listed. Do not add a title line or a list of sources. Answer "
        'JSON: {"body": "..."}.'
    )
    material = "\n\n".join(f"From the document {doc!r}:\n{text}" for doc, text in contributions)
    user = (
        f"Page: {title}\n\nOther pages:\n{pages}\n\nCurrent text:\n"
        f"{current_body[:PAGE_BUDGET_CHARS] or '(empty: a new page)'}\n\nNew material:\n"
        f"{material[:PAGE_BUDGET_CHARS]}"
    )
    answer = model.complete(
        [ChatMessage("system", instructions), ChatMessage("user", user)],
        json_schema=PAGE_SCHEMA,
        max_tokens=_PAGE_TOKENS,
    )
    parsed = json.loads(answer)
    body = str(parsed.get("body") or "").strip() if isinstance(parsed, dict) else ""
    return body or rebuilt_body([current_body, *(text for _, text in contributions)])
