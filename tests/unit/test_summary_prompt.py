"""What the summary model is asked (title, custom metadata, then the chunks' text) and how a
summary refresh is queued (one job id per knowledge and refresh sequence, in the
knowledge's group)."""

from __future__ import annotations

from core.payloads import SummaryRefreshPayload
from storage.queue.base import QueueName
from workers import task_specs
from workers.enrichment.summary_text import summary_messages


def test_the_model_reads_the_title_and_the_metadata_before_the_text() -> None:
    _, user = summary_messages(
        "Ferry timetable", "The ferry sails at 07:15.", 300, {"site": "Orvik", "owner": "ops"}
    )
    assert user.content == (
        "Title: Ferry timetable\nowner: ops\nsite: Orvik\n\nThe ferry sails at 07:15."
    )
    _, bare = summary_messages("", "The ferry sails at 07:15.", 300)
    assert bare.content == "The ferry sails at 07:15."


def test_a_refresh_is_one_job_per_knowledge_and_sequence() -> None:
    def spec(sequence: int) -> tuple[str | None, str | None, QueueName]:
        payload = SummaryRefreshPayload("t", "k1", "kb", sequence)
        made = task_specs.summary_refresh(payload)
        return made.job_id, made.group, made.queue

    assert spec(3) == spec(3)  # edits while it waits: one task
    assert spec(4)[0] != spec(3)[0]  # an edit once it began: one more
    assert spec(3) == ("knowledge-summary-refresh-k1-3", "k1", QueueName.SUMMARY)
