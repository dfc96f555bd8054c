"""What an image caption needs of a vision-language model (VLM): a Protocol, so whatever
provider the knowledge base's VLMConfig names fits (``workers.models`` builds them), and
the caption prompt its configuration asks for (spec: buildVLMCaptionPrompt)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from core.effective_config import EffectiveConfig


class VisionModel(Protocol):
    def describe(self, image: bytes, mime_type: str, prompt: str) -> str: ...


# The VLM of a round's configuration; None when it names none (then images get OCR only).
VisionModels = Callable[[EffectiveConfig], VisionModel | None]


def no_vision_model(config: EffectiveConfig) -> VisionModel | None:
    """No VLM is wired into this process: images get OCR only."""
    return None


# What the multimodal stage and the image tasks ask for a round's VLM: the one place where
# the model providers are plugged in.
VISION_MODELS: VisionModels = no_vision_model


def caption_prompt(config: EffectiveConfig) -> str:
    """The caption prompt: in the configured description language, with the knowledge
    base's own instructions after it."""
    language = str(config.vlm.get("description_language") or "").strip()
    instructions = str(config.vlm.get("custom_instructions") or "").strip()
    prompt = (
        "Describe this image for a search index: what it shows, and any text, numbers, "
        "labels or data it contains."
    )
    if language:
        prompt += f" Answer in {language}."
    return f"{prompt}\n{instructions}" if instructions else prompt
