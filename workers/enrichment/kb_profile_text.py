"""A knowledge base's profile: the aggregate it is written from (its documents' titles and
summaries), that aggregate's hash, and what the model is asked.

The hash covers every document; the model reads them in order up to
``SOURCE_BUDGET_CHARS`` and is told how many more there are, so a knowledge base of many
documents costs one bounded call."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from storage.db.repositories.kb_profiles import ProfileDocument
from workers.enrichment.summary_text import fitted
from workers.models.protocols import ChatMessage, ChatModel

# About a long paragraph: what the documents cover, for a person or a router of questions.
PROFILE_MAX_LENGTH = 1000
SOURCE_BUDGET_CHARS = 12_000


def aggregate_hash(documents: Sequence[ProfileDocument]) -> str:
    """sha256 of the documents' titles and summaries in their order (JSON, so no title or
    summary can run into the next)."""
    pairs = [[d.title, d.summary] for d in documents]
    return hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()


def profile_source(documents: Sequence[ProfileDocument], budget: int = SOURCE_BUDGET_CHARS) -> str:
    lines: list[str] = []
    used = 0
    for i, document in enumerate(documents):
        line = (
            f"- {document.title}: {document.summary}" if document.summary else f"- {document.title}"
        )
        if used + len(line) > budget and lines:
            lines.append(f"(and {len(documents) - i} more documents)")
            break
        lines.append(line[:budget])
        used += len(line) + 1
    return "\n".join(lines)


def write_profile_text(model: ChatModel, name: str, documents: Sequence[ProfileDocument]) -> str:
    """The model's description of the knowledge base (ModelError when it fails), fitted to
    ``PROFILE_MAX_LENGTH``; empty when it answered nothing usable."""
    instructions = (
        "You describe a knowledge base from the titles and summaries of its documents. Write "
        f"one plain-text paragraph of at most {PROFILE_MAX_LENGTH} characters saying what "
        "the documents cover: their subjects, kinds of document and the questions they can "
        "answer. Write in the language most documents are written in. No heading, no "
        "preamble, no Markdown."
    )
    messages = [
        ChatMessage("system", instructions),
        ChatMessage("user", f"Knowledge base: {name}\n\nDocuments:\n{profile_source(documents)}"),
    ]
    answer = model.complete(messages, max_tokens=PROFILE_MAX_LENGTH)
    return fitted(answer, PROFILE_MAX_LENGTH)
