"""core.faq_entry: cleaning an entry, its field violations and the knowledge base's modes."""

from __future__ import annotations

from core.faq_entry import (
    MAX_ANSWERS,
    MAX_QUESTION_CHARS,
    AnswerStrategy,
    FaqEntryContent,
    FaqIndexMode,
    FaqIndexModes,
    FaqQuestionIndexMode,
    QuestionKind,
    clean_entry,
    entry_violations,
    faq_index_modes,
)


def test_cleaning_trims_drops_empties_and_normalised_repeats() -> None:
    entry = clean_entry(
        "  Where is it? ",
        ["where IS it?", " Location ", "", "location", "Place"],
        ["  ", "Where is the car?"],
        ["A", " A ", "B"],
        AnswerStrategy.RANDOM,
        "",
    )
    assert entry.standard_question == "Where is it?"
    assert entry.similar_questions == ("Location", "Place")
    assert entry.negative_questions == ("Where is the car?",)
    assert entry.answers == ("A", "B")
    assert entry.tag_id is None
    assert FaqEntryContent.from_metadata(entry.as_metadata()) == entry
    assert (QuestionKind.NEGATIVE, "where is the car?") in entry.asked()


def test_violations_name_every_field_at_fault() -> None:
    fields = {
        field
        for field, _ in entry_violations(
            clean_entry(
                "x" * (MAX_QUESTION_CHARS + 1),
                ["ok", "y" * (MAX_QUESTION_CHARS + 1)],
                ["OK"],
                [f"a{i}" for i in range(MAX_ANSWERS + 1)],
            )
        )
    }
    assert fields == {
        "content.standard_question",
        "content.similar_questions[1]",
        "content.negative_questions[0]",
        "content.answers",
    }
    assert entry_violations(clean_entry("q", [], [], ["a"])) == []
    assert {f for f, _ in entry_violations(clean_entry("", [], [], []))} == {
        "content.standard_question",
        "content.answers",
    }


def test_index_modes_from_the_stored_config() -> None:
    assert faq_index_modes({}) == FaqIndexModes()
    assert faq_index_modes(
        {
            "faq": {
                "index_mode": "FAQ_INDEX_MODE_QUESTION_ANSWER",
                "question_index_mode": "FAQ_QUESTION_INDEX_MODE_SEPARATE",
            }
        }
    ) == FaqIndexModes(FaqIndexMode.QUESTION_ANSWER, FaqQuestionIndexMode.SEPARATE)
