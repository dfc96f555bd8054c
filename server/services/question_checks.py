"""The check a question generation configuration passes (a knowledge base's or an
upload's): how many questions per chunk it asks for."""

from __future__ import annotations

from sluice.v1 import config_pb2

from core.effective_config import DEFAULT_QUESTION_COUNT, MAX_QUESTION_COUNT
from core.errors import InvalidArgument


def check_question_count(config: config_pb2.QuestionGenerationConfig, field: str) -> None:
    """INVALID_ARGUMENT on ``{field}.question_count`` outside 0..MAX_QUESTION_COUNT (0: the
    default)."""
    if not 0 <= config.question_count <= MAX_QUESTION_COUNT:
        raise InvalidArgument.field(
            f"{field}.question_count",
            f"must be between 1 and {MAX_QUESTION_COUNT} (0 or unset: {DEFAULT_QUESTION_COUNT})",
        )
