"""What the model is asked to pick a document's tags and how its answer is read: the
knowledge base's tag names are the JSON schema's enum, so a model honouring structured
outputs can only name existing tags; the answer is still held to them (and to
``max_tags``), since not every endpoint enforces the schema."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from workers.models.errors import ModelUnusable
from workers.models.protocols import ChatMessage, ChatModel

# An answer that is JSON but not {"tags": [names]}: the model does not follow the schema.
ANSWER_UNREADABLE = "AUTO_TAG_ANSWER_UNREADABLE"


def tag_schema(names: Sequence[str], max_tags: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": list(names)},
                "maxItems": max_tags,
            }
        },
        "required": ["tags"],
        "additionalProperties": False,
    }


def tag_messages(names: Sequence[str], max_tags: int, title: str, source: str) -> list[ChatMessage]:
    instructions = (
        "You file documents under the existing tags of a knowledge base. Choose at most "
        f"{max_tags} of the tags listed that describe what the document is about, the best "
        "fitting first; choose only tags from the list, exactly as written, and none if none "
        'fits. Answer with JSON: {"tags": [...]}.'
    )
    listed = "\n".join(f"- {name}" for name in names)
    document = f"Title: {title}\n\n{source}" if title else source
    return [
        ChatMessage("system", instructions),
        ChatMessage("user", f"Tags:\n{listed}\n\nDocument:\n{document}"),
    ]


def pick_tags(
    model: ChatModel, names: Sequence[str], max_tags: int, title: str, source: str
) -> list[str]:
    """The names the model picked, each one of ``names``, in its order, at most
    ``max_tags``. ModelError when the model fails; ModelUnusable when its JSON answer is
    not the schema's shape (asking again would not change that)."""
    answer = model.complete(
        tag_messages(names, max_tags, title, source),
        json_schema=tag_schema(names, max_tags),
        max_tokens=64 * max_tags,
    )
    picked = json.loads(answer).get("tags") if answer.strip().startswith("{") else None
    if not isinstance(picked, list):
        raise ModelUnusable(
            ANSWER_UNREADABLE,
            "auto-tag",
            f'the model answered {answer[:200]!r}, not {{"tags": [...]}}',
        )
    known = set(names)
    chosen = [name for name in dict.fromkeys(picked) if isinstance(name, str) and name in known]
    return chosen[:max_tags]
