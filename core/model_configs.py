"""The chat and vision models a configuration names (VLM, summary, questions, extraction,
wiki), read from the JSON form of ``ModelConfig`` (proto/sluice/v1/config.proto) as the
database stores it. Frozen, so a whole configuration is a cache key: two knowledge bases
naming the same model at different endpoints or with different keys get different clients.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Every one of them speaks OpenAI's chat-completions protocol; empty means "openai".
CHAT_PROVIDERS = ("openai", "ollama", "vllm")
# Where a configuration names a chat or vision model (KnowledgeBaseConfig, ProcessConfig).
CHAT_MODEL_FIELDS = (
    "vlm.model",
    "summary.model",
    "question_generation.model",
    "extract.model",
    "wiki.synthesis_model",
)


@dataclass(frozen=True)
class ChatModelConfig:
    # "openai" (or empty), "ollama", "vllm": all speak OpenAI's chat-completions protocol.
    provider: str = ""
    model: str = ""
    base_url: str = ""
    api_key: str = ""

    @property
    def configured(self) -> bool:
        return bool(self.model)


NO_MODEL = ChatModelConfig()


@dataclass(frozen=True)
class VlmConfig:
    model: ChatModelConfig = NO_MODEL
    # The language captions are written in ("" = the model's choice) and what else to say.
    description_language: str = ""
    custom_instructions: str = ""


def chat_model_of(model: Mapping[str, Any] | None) -> ChatModelConfig:
    """A ModelConfig JSON as a ChatModelConfig (NO_MODEL when it names no model)."""
    raw = model or {}
    name = str(raw.get("model") or "")
    if not name:
        return NO_MODEL
    return ChatModelConfig(
        provider=str(raw.get("provider") or "").strip().lower(),
        model=name,
        base_url=str(raw.get("base_url") or "").strip(),
        api_key=str(raw.get("api_key") or ""),
    )


def chosen_model(
    upload: Mapping[str, Any] | None, kb: Mapping[str, Any] | None, field: str = "model"
) -> ChatModelConfig:
    """The ``field`` model of an upload's section when it names one, else the knowledge
    base's (as the upload pre-check decides for VLM and ASR)."""
    over = chat_model_of((upload or {}).get(field))
    return over if over.configured else chat_model_of((kb or {}).get(field))


def vlm_config_of(upload: Mapping[str, Any] | None, kb: Mapping[str, Any] | None) -> VlmConfig:
    """The VLM an upload's process_config names over the knowledge base's; its language and
    instructions likewise, each on its own."""
    over, base = upload or {}, kb or {}
    return VlmConfig(
        model=chosen_model(over, base),
        description_language=str(
            over.get("description_language") or base.get("description_language") or ""
        ).strip(),
        custom_instructions=str(
            over.get("custom_instructions") or base.get("custom_instructions") or ""
        ).strip(),
    )
