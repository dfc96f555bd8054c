"""A document's summary: what of the document the model reads, what it is asked, and the
answer fitted to the configured length.

The model reads the title, the custom metadata and the text chunks in document order up
to ``SOURCE_BUDGET_CHARS``; a longer document is read as its first half-budget and then
chunks spread evenly over the rest, so the end of a long report is summarised as well as
its beginning. The answer is written in the document's own language and cut at a sentence
(else word) boundary when it runs over ``max_length`` characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from workers.models.protocols import ChatMessage, ChatModel

# SummaryConfig.max_length when unset: about a paragraph.
DEFAULT_MAX_LENGTH = 500
# About 3,000 tokens of source: enough for a faithful summary, cheap for any chat model.
SOURCE_BUDGET_CHARS = 12_000
# After ., !, ? and a space, or right after the CJK full stop and full-width ! and ?.
_SENTENCE_END = re.compile("(?<=[.!?])\\s+|(?<=[\u3002\uff01\uff1f])")


def summary_source(chunks: Sequence[str], budget: int = SOURCE_BUDGET_CHARS) -> str:
    """The chunks' text the model reads, within ``budget`` characters."""
    texts = [c.strip() for c in chunks if c.strip()]
    if sum(len(t) + 2 for t in texts) <= budget:
        return "\n\n".join(texts)
    head: list[str] = []
    used = 0
    for i, text in enumerate(texts):
        if used + len(text) > budget // 2:
            rest = texts[i:]
            break
        head.append(text)
        used += len(text) + 2
    else:
        rest = []
    # Evenly spread picks from what is left, as many as the other half holds.
    average = max(1, sum(len(t) for t in rest) // max(1, len(rest)))
    picks = max(1, (budget - used) // (average + 2))
    step = max(1, len(rest) // picks)
    tail = [t[: budget - used] for t in rest[::step][:picks]]
    return "\n\n".join([*head, "[…]", *tail])[:budget]


def summary_messages(
    title: str, source: str, max_length: int, metadata: Mapping[str, str] | None = None
) -> list[ChatMessage]:
    instructions = (
        "You summarise documents for a search index. Write one plain-text paragraph of at "
        f"most {max_length} characters saying what the document is about and its key facts "
        "(names, numbers, dates, conclusions). Write in the language the document is "
        "written in. No heading, no preamble, no Markdown."
    )
    # The custom metadata (owner, department...) says what the document is too.
    header = [f"Title: {title}"] if title else []
    header += [f"{key}: {value}" for key, value in sorted((metadata or {}).items())]
    return [
        ChatMessage("system", instructions),
        ChatMessage("user", "\n".join(header) + f"\n\n{source}" if header else source),
    ]


def fitted(summary: str, max_length: int) -> str:
    """``summary`` stripped and at most ``max_length`` characters: cut after the last whole
    sentence that fits, else at the last whole word, else hard."""
    text = " ".join(summary.split())
    if len(text) <= max_length:
        return text
    window = text[:max_length]
    ends = [m.start() for m in _SENTENCE_END.finditer(window)]
    if ends and ends[-1] >= max_length // 2:
        return window[: ends[-1]].rstrip()
    space = window.rfind(" ")
    return (window[:space] if space >= max_length // 2 else window).rstrip()


def write_summary(
    model: ChatModel,
    title: str,
    chunks: Sequence[str],
    max_length: int = DEFAULT_MAX_LENGTH,
    metadata: Mapping[str, str] | None = None,
) -> str:
    """The model's summary of the chunks (ModelError when the model fails), fitted; empty
    when the model answered nothing usable."""
    source = summary_source(chunks)
    messages = summary_messages(title, source, max_length, metadata)
    # No language needs more than a token a character: max_length tokens always suffice.
    answer = model.complete(messages, max_tokens=max_length)
    return fitted(answer, max_length)
