"""What the enrichments (captions, summaries, questions, tags, extraction) ask of a model.

Implementations are safe to share between threads; their failures are
``workers.models.errors.ModelError`` (``retryable`` tells a retry from a final verdict).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from core.model_configs import VlmConfig

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


class ChatModel(Protocol):
    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The assistant's text; with ``json_schema``, JSON text the model was asked to make
        match it (it is checked to be JSON, not against the schema)."""
        ...


class VisionModel(Protocol):
    def describe(self, image: bytes, mime_type: str, prompt: str) -> str:
        """What the model says of ``image`` (sent as a data: URL part) asked ``prompt``."""
        ...


class VisionModels(Protocol):
    """The VLM of a configuration (the process's ModelRegistry); None when it names none."""

    def vision(self, config: VlmConfig) -> VisionModel | None: ...
