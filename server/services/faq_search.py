"""What Search makes of a hit on an FAQ entry (a chunk of type faq): the entry, once however
many of its rows matched (separate mode's similar-question rows carry the entry's chunk id),
with its standard question and its answers by the entry's strategy (all: every answer in
order; random: one picked per hit).

Negative questions: a hit is dropped when the normalised query equals one of the entry's
normalised negative questions (core.faq_text, the normalisation duplicate checks and imports
use). Exact equality of normalised text, not a similarity threshold: a threshold would hang
on the embedding model and the index mode and could hide an entry from queries nobody
listed; the negative questions are exactly the queries the entry must not answer."""

from __future__ import annotations

import random
from dataclasses import dataclass

from core.faq_entry import AnswerStrategy, FaqEntryContent
from core.faq_text import normalize_faq_text
from core.statuses import ChunkType
from storage.db.models import Chunk


@dataclass(frozen=True)
class FaqMatch:
    entry_id: str
    standard_question: str
    answers: tuple[str, ...]


def is_faq(chunk: Chunk) -> bool:
    return chunk.chunk_type == ChunkType.FAQ


def refused(chunk: Chunk, normalised_query: str) -> bool:
    """A disabled entry, or one whose negative questions include the query."""
    if not chunk.is_enabled:
        return True
    negatives = chunk.meta.get("negative_questions") or ()
    return any(normalize_faq_text(q) == normalised_query for q in negatives)


def faq_match(chunk: Chunk) -> FaqMatch:
    content = FaqEntryContent.from_metadata(chunk.meta)
    answers = content.answers
    if content.answer_strategy == AnswerStrategy.RANDOM and answers:
        # Not a secret: spreading answers over hits needs no cryptographic randomness.
        answers = (random.choice(answers),)
    return FaqMatch(chunk.id, content.standard_question, answers)
