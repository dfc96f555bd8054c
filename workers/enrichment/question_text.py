"""A text chunk's search questions: what the model is asked, and its answer read back.

The model reads the document's title, the chunk's heading breadcrumbs and its text (up to
``SOURCE_BUDGET_CHARS``) and answers JSON, ``{"questions": [...]}``: the questions the
passage answers, phrased as someone searching would ask them, in the passage's language.
Blank, repeated and overlong answers are dropped, at most ``count`` kept.
"""

from __future__ import annotations

import json
from typing import Any

from workers.models.protocols import ChatMessage, ChatModel

# A chunk is at most a few thousand characters; a larger one is read as its start.
SOURCE_BUDGET_CHARS = 6_000
# Longer than any question a search box gets: such an answer is not a question.
MAX_QUESTION_CHARS = 300
# What one question costs at most, in tokens, plus the JSON around them.
_TOKENS_PER_QUESTION = 80
_TOKENS_OVERHEAD = 64

QUESTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"questions": {"type": "array", "items": {"type": "string"}}},
    "required": ["questions"],
    "additionalProperties": False,
}


def question_messages(title: str, header: str, content: str, count: int) -> list[ChatMessage]:
    instructions = (
        "You write search questions for a passage of a document, for a search index. Write "
        f"{count} different questions that the passage answers, each as someone looking for "
        "this information would type it into a search box, each answerable from the passage "
        "alone, in the language the passage is written in. Answer JSON: "
        '{"questions": ["...", ...]}.'
    )
    lines = [f"Document: {title}" if title else "", f"Section: {header}" if header else ""]
    source = "\n".join(line for line in lines if line)
    passage = content.strip()[:SOURCE_BUDGET_CHARS]
    return [
        ChatMessage("system", instructions),
        ChatMessage("user", f"{source}\n\n{passage}" if source else passage),
    ]


def read_questions(answer: str, count: int) -> list[str]:
    """The questions of a JSON answer (already checked to be JSON), at most ``count``."""
    parsed = json.loads(answer)
    raw = parsed.get("questions") if isinstance(parsed, dict) else parsed
    found: dict[str, str] = {}
    for item in raw if isinstance(raw, list) else []:
        question = " ".join(str(item).split()) if isinstance(item, str) else ""
        if question and len(question) <= MAX_QUESTION_CHARS:
            found.setdefault(question.casefold(), question)
    return list(found.values())[:count]


def ask_questions(model: ChatModel, title: str, header: str, content: str, count: int) -> list[str]:
    """The model's questions about one chunk (ModelError when the model fails)."""
    answer = model.complete(
        question_messages(title, header, content, count),
        json_schema=QUESTIONS_SCHEMA,
        max_tokens=_TOKENS_OVERHEAD + _TOKENS_PER_QUESTION * count,
    )
    return read_questions(answer, count)
