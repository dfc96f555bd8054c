"""The import planner: the content-hash dedup, the append mode's four checks and the
replace mode's keep / rewrite in place, within the import and against existing entries."""

from __future__ import annotations

from workers.faq_import.planner import (
    FAILED,
    PARTIAL,
    SKIPPED,
    SUCCEEDED,
    Catalogue,
    EntryText,
    plan_row,
)


def entry(
    q: str,
    *,
    similar: tuple[str, ...] = (),
    negative: tuple[str, ...] = (),
    answers: tuple[str, ...] = ("an answer",),
) -> EntryText:
    return EntryText(q, similar, negative, answers)


def existing(*entries: tuple[str, EntryText], old: bool = False) -> Catalogue:
    catalogue = Catalogue()
    for key, item in entries:
        catalogue.add(key, item, old=old)
    return catalogue


def test_a_new_entry_is_created_and_the_same_content_again_is_skipped() -> None:
    catalogue = Catalogue()
    first, written = plan_row(catalogue, 2, entry("How do I reset?", similar=("reset help",)))
    assert (first.outcome, first.key, written) == (SUCCEEDED, "new:2", catalogue.entries["new:2"])
    # Normalised: case, full-width forms and spacing do not make it another entry.
    again, written = plan_row(
        catalogue, 3, entry("\uff28\uff2f\uff37 do  i reset?", similar=("Reset help",))
    )
    assert (again.outcome, again.key, written) == (SKIPPED, "new:2", None)


def test_a_standard_question_that_is_another_entrys_similar_question_fails_the_row() -> None:
    catalogue = existing(("e1", entry("Opening hours", similar=("When are you open?",))))
    decision, written = plan_row(catalogue, 2, entry("when are you open?"))
    assert decision.outcome == FAILED and written is None
    assert "similar question of entry e1" in decision.reason


def test_conflicting_similar_and_negative_questions_are_dropped_alone() -> None:
    catalogue = existing(("e1", entry("Opening hours", similar=("When are you open?",))))
    decision, written = plan_row(
        catalogue,
        2,
        entry(
            "Prices",
            similar=("opening hours", "How much?"),
            negative=("When are you open?", "Prices"),
        ),
    )
    assert decision.outcome == PARTIAL
    assert written is not None
    assert written.similar_questions == ("How much?",)
    assert written.negative_questions == ()
    assert "similar question 'opening hours' (entry e1)" in decision.reason
    assert "negative question 'Prices' (a question of this entry)" in decision.reason


def test_an_existing_standard_question_merges_the_row_into_that_entry() -> None:
    catalogue = existing(("e1", entry("Opening hours", similar=("hours?",), answers=("9-5",))))
    decision, written = plan_row(
        catalogue,
        2,
        entry("opening hours", similar=("Hours?", "open when"), answers=("9-5", "Sat 10-2")),
    )
    assert (decision.outcome, decision.key) == (SUCCEEDED, "e1")
    assert written is not None
    assert written.standard_question == "Opening hours"
    assert written.similar_questions == ("hours?", "open when")
    assert written.answers == ("9-5", "Sat 10-2")
    # Merging what it already has adds nothing: skipped.
    again, nothing = plan_row(
        catalogue, 3, entry("Opening hours", similar=("open when",), answers=("9-5",))
    )
    assert (again.outcome, nothing) == (SKIPPED, None)


def test_duplicates_inside_the_import_are_judged_like_existing_entries() -> None:
    catalogue = Catalogue()
    plan_row(catalogue, 2, entry("A", similar=("alpha",)))
    merged, _ = plan_row(catalogue, 3, entry("a", answers=("another",)))
    assert (merged.outcome, merged.key) == (SUCCEEDED, "new:2")
    failed, _ = plan_row(catalogue, 4, entry("Alpha"))
    assert failed.outcome == FAILED and "entry of row 2" in failed.reason


def test_replace_keeps_the_same_hash_rewrites_the_same_standard_question_in_place() -> None:
    catalogue = existing(
        ("old1", entry("Kept", answers=("same",))),
        ("old2", entry("Rewritten", similar=("x",), answers=("before",))),
        ("old3", entry("Dropped", similar=("Y",))),
        old=True,
    )
    kept, _ = plan_row(catalogue, 2, entry("Kept", answers=("same",)))
    rewritten, content = plan_row(
        catalogue, 3, entry("rewritten", similar=("y",), answers=("after",))
    )
    assert (kept.outcome, kept.key) == (SKIPPED, "old1")
    # Old entries are not checked against: "y" is old3's, which the replace deletes.
    assert (rewritten.outcome, rewritten.key) == (SUCCEEDED, "old2")
    assert (
        content is not None
        and content.answers == ("after",)
        and content.similar_questions == ("y",)
    )
    assert catalogue.old == {"old3"}


def test_a_created_entry_renamed_to_its_id_keeps_its_place() -> None:
    catalogue = Catalogue()
    plan_row(catalogue, 2, entry("A", similar=("alpha",)))
    catalogue.rename("new:2", "id-1")
    decision, _ = plan_row(catalogue, 3, entry("Alpha"))
    assert decision.outcome == FAILED and "entry id-1" in decision.reason
    merged, _ = plan_row(catalogue, 4, entry("A", answers=("more",)))
    assert merged.key == "id-1"


def test_replace_finds_the_old_entries_holding_a_question_it_writes() -> None:
    catalogue = existing(
        ("old1", entry("Ferry times", similar=("When does the ferry leave?",))),
        ("old2", entry("Parking")),
        old=True,
    )
    decision, written = plan_row(
        catalogue, 2, entry("Boats", similar=("when does the FERRY leave?",))
    )
    assert decision.outcome == SUCCEEDED and written is not None
    assert catalogue.old_holders([written]) == {"old1"}
    catalogue.forget_old({"old1"})
    assert catalogue.old == {"old2"} and "old1" not in catalogue.entries


def test_a_merge_past_the_limits_fails_the_row_and_changes_nothing() -> None:
    catalogue = existing(("e1", entry("Hours", answers=("a1",))))
    decision, written = plan_row(
        catalogue,
        2,
        entry("Hours", answers=("a2",)),
        lambda e: "too many" if len(e.answers) > 1 else "",
    )
    assert (decision.outcome, decision.reason, written) == (FAILED, "too many", None)
    assert catalogue.entries["e1"].answers == ("a1",)
