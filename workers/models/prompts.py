"""The prompt of an image caption (spec: buildVLMCaptionPrompt, from the VLM configuration's
DescriptionLanguage and CustomInstructions). The caption is indexed beside the chunk that
shows the image, so it asks for what a search would look for: the text, the subject, the
data of a chart or table."""

from __future__ import annotations

_BASE = (
    "Describe this image for a search index. State what it shows: its subject, any text "
    "in it (verbatim), and for a chart, table or diagram the data and relations it "
    "conveys. Be factual and concise; do not speculate about what is not visible."
)


def vlm_caption_prompt(description_language: str = "", custom_instructions: str = "") -> str:
    """The caption prompt: the base request, the language to answer in ("" = the model's
    choice) and the knowledge base's own instructions, in that order."""
    parts = [_BASE]
    language = description_language.strip()
    if language:
        parts.append(f"Write the description in {language}.")
    instructions = custom_instructions.strip()
    if instructions:
        parts.append(f"Additional instructions: {instructions}")
    return "\n\n".join(parts)
