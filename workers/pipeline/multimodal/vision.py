"""Where an image's caption comes from: the vision-language model (VLM) a round's VLMConfig
names, resolved by the process's model registry (``workers.models``), and the caption
prompt that configuration asks for (spec: buildVLMCaptionPrompt)."""

from __future__ import annotations

from typing import Protocol

from core.model_configs import VlmConfig
from workers.models.prompts import vlm_caption_prompt
from workers.models.protocols import VisionModel


class VisionModels(Protocol):
    """The VLM of a configuration; None when it names none (then images get OCR only)."""

    def vision(self, config: VlmConfig) -> VisionModel | None: ...


def caption_prompt(config: VlmConfig) -> str:
    return vlm_caption_prompt(config.description_language, config.custom_instructions)
