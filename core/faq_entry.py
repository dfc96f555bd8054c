"""An FAQ entry's content as it is stored (cleaned), the validation that gives its field
violations, and the knowledge base's FAQ index modes: shared by single creates (the API), the
FAQ import and the FAQ clone (the workers), so all three clean and check an entry the same way.

Cleaning trims every text, drops empty items and keeps the first of items whose normalised
text (core.faq_text) repeats; a similar question equal to the standard one is dropped too
(it would only index the same text twice)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

from core.faq_text import faq_content_hash, normalize_faq_text

MAX_QUESTION_CHARS = 1000
MAX_QUESTIONS = 100
MAX_ANSWERS = 20
MAX_ANSWER_CHARS = 10000


class AnswerStrategy(StrEnum):
    ALL = "all"
    RANDOM = "random"


class QuestionKind(StrEnum):
    STANDARD = "standard"
    SIMILAR = "similar"
    NEGATIVE = "negative"


class FaqIndexMode(StrEnum):
    """What an entry's rows hold: its questions only, or its answers' text too."""

    QUESTION_ONLY = "question_only"
    QUESTION_ANSWER = "question_answer"


class FaqQuestionIndexMode(StrEnum):
    """One row for the standard and similar questions together, or one row each."""

    COMBINED = "combined"
    SEPARATE = "separate"


@dataclass(frozen=True)
class FaqIndexModes:
    content: FaqIndexMode = FaqIndexMode.QUESTION_ONLY
    questions: FaqQuestionIndexMode = FaqQuestionIndexMode.COMBINED


def faq_index_modes(kb_config: Mapping[str, Any]) -> FaqIndexModes:
    """The modes of a knowledge base's stored config (its FAQConfig as JSON, enum names);
    unspecified means question_only and combined."""
    faq = kb_config.get("faq") or {}
    content = (
        FaqIndexMode.QUESTION_ANSWER
        if faq.get("index_mode") == "FAQ_INDEX_MODE_QUESTION_ANSWER"
        else FaqIndexMode.QUESTION_ONLY
    )
    questions = (
        FaqQuestionIndexMode.SEPARATE
        if faq.get("question_index_mode") == "FAQ_QUESTION_INDEX_MODE_SEPARATE"
        else FaqQuestionIndexMode.COMBINED
    )
    return FaqIndexModes(content, questions)


@dataclass(frozen=True)
class FaqEntryContent:
    """A cleaned entry: what a chunk of type faq stores in its metadata (``as_metadata``)."""

    standard_question: str
    similar_questions: tuple[str, ...] = ()
    negative_questions: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    answer_strategy: AnswerStrategy = AnswerStrategy.ALL
    tag_id: str | None = None

    @cached_property  # frozen: computed once, asked by every check and write
    def content_hash(self) -> str:
        return faq_content_hash(
            self.standard_question, self.similar_questions, self.negative_questions, self.answers
        )

    def asked(self) -> list[tuple[QuestionKind, str]]:
        """Every normalised question with its kind, each (kind, text) once."""
        seen: dict[tuple[QuestionKind, str], None] = {}
        seen[(QuestionKind.STANDARD, normalize_faq_text(self.standard_question))] = None
        for q in self.similar_questions:
            seen[(QuestionKind.SIMILAR, normalize_faq_text(q))] = None
        for q in self.negative_questions:
            seen[(QuestionKind.NEGATIVE, normalize_faq_text(q))] = None
        return [key for key in seen if key[1]]

    def as_metadata(self) -> dict[str, Any]:
        return {
            "standard_question": self.standard_question,
            "similar_questions": list(self.similar_questions),
            "negative_questions": list(self.negative_questions),
            "answers": list(self.answers),
            "answer_strategy": str(self.answer_strategy),
            "tag_id": self.tag_id or "",
        }

    @classmethod
    def from_metadata(cls, meta: Mapping[str, Any]) -> FaqEntryContent:
        return cls(
            standard_question=str(meta.get("standard_question", "")),
            similar_questions=tuple(meta.get("similar_questions") or ()),
            negative_questions=tuple(meta.get("negative_questions") or ()),
            answers=tuple(meta.get("answers") or ()),
            answer_strategy=AnswerStrategy(meta.get("answer_strategy") or AnswerStrategy.ALL),
            tag_id=meta.get("tag_id") or None,
        )


def clean_entry(
    standard_question: str,
    similar_questions: Iterable[str] = (),
    negative_questions: Iterable[str] = (),
    answers: Iterable[str] = (),
    answer_strategy: AnswerStrategy = AnswerStrategy.ALL,
    tag_id: str | None = None,
) -> FaqEntryContent:
    standard = standard_question.strip()
    standard_key = normalize_faq_text(standard)
    return FaqEntryContent(
        standard_question=standard,
        similar_questions=_unique(similar_questions, exclude={standard_key}),
        negative_questions=_unique(negative_questions),
        answers=_unique(answers),
        answer_strategy=answer_strategy,
        tag_id=tag_id or None,
    )


def entry_violations(entry: FaqEntryContent, prefix: str = "content.") -> list[tuple[str, str]]:
    """Every (field, description) the cleaned ``entry`` breaks; empty when it is valid. A
    negative question equal to a standard or similar one is refused: the entry would never
    be found by it."""
    out: list[tuple[str, str]] = []
    if not entry.standard_question:
        out.append((f"{prefix}standard_question", "is required"))
    elif len(entry.standard_question) > MAX_QUESTION_CHARS:
        out.append((f"{prefix}standard_question", f"is over {MAX_QUESTION_CHARS} characters"))
    for name, items in (
        ("similar_questions", entry.similar_questions),
        ("negative_questions", entry.negative_questions),
    ):
        out += _list_violations(f"{prefix}{name}", items, MAX_QUESTIONS, MAX_QUESTION_CHARS)
    if not entry.answers:
        out.append((f"{prefix}answers", "at least one answer is required"))
    out += _list_violations(f"{prefix}answers", entry.answers, MAX_ANSWERS, MAX_ANSWER_CHARS)
    asked = {text for kind, text in entry.asked() if kind != QuestionKind.NEGATIVE}
    for i, q in enumerate(entry.negative_questions):
        if normalize_faq_text(q) in asked:
            out.append(
                (f"{prefix}negative_questions[{i}]", "is also a standard or similar question")
            )
    return out


def _list_violations(
    field: str, items: Sequence[str], max_items: int, max_chars: int
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if len(items) > max_items:
        out.append((field, f"has {len(items)} items, over {max_items}"))
    out += [
        (f"{field}[{i}]", f"is over {max_chars} characters")
        for i, item in enumerate(items)
        if len(item) > max_chars
    ]
    return out


def _unique(items: Iterable[str], exclude: set[str] | None = None) -> tuple[str, ...]:
    seen = set(exclude or ())
    out: list[str] = []
    for item in items:
        text = item.strip()
        key = normalize_faq_text(text)
        if key and key not in seen:
            seen.add(key)
            out.append(text)
    return tuple(out)
