"""The caption prompt (spec: buildVLMCaptionPrompt) from the VLM configuration's language
and custom instructions."""

from __future__ import annotations

from workers.models.prompts import vlm_caption_prompt


def test_the_base_prompt_asks_for_what_a_search_would_look_for() -> None:
    prompt = vlm_caption_prompt()
    assert "Describe this image" in prompt and "verbatim" in prompt
    assert "Write the description in" not in prompt and "Additional" not in prompt


def test_the_language_and_the_instructions_follow_the_base_prompt_in_order() -> None:
    prompt = vlm_caption_prompt(" Russian ", "  Name every product shown. ")
    base, language, instructions = prompt.split("\n\n")
    assert base == vlm_caption_prompt()
    assert language == "Write the description in Russian."
    assert instructions == "Additional instructions: Name every product shown."
    assert vlm_caption_prompt("", "Only the chart.").endswith(
        "\n\nAdditional instructions: Only the chart."
    )
