"""Idempotent subtask ends (``subtask_ends``): recording a subtask's end and counting the
round down are one transaction, done once per (round, kind, index) however many callers
end it at the same instant, and only while the round is current and finalizing."""

from __future__ import annotations

from storage.db.engine import Database
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from tests.integration.storage.conftest import Scope, run_together
from tests.integration.storage.test_knowledge_subtasks import finalizing, state


def test_a_subtask_ended_by_many_at_once_counts_once(database: Database, scope: Scope) -> None:
    ends = SubtaskEndRepository(database)
    knowledge, attempt = finalizing(database, scope, 3)

    results = run_together(6, lambda _: ends.end_once(knowledge.id, attempt, "question", 1))

    assert [r is not None and r.counted for r in results].count(True) == 1
    assert state(database, knowledge.id) == ("finalizing", 2)
    assert ends.ended(knowledge.id, attempt, "question", 1)
    assert not ends.ended(knowledge.id, attempt, "question", 2)
    assert not ends.ended(knowledge.id, attempt, "graph", 1)


def test_the_last_subtask_completes_the_round(database: Database, scope: Scope) -> None:
    ends = SubtaskEndRepository(database)
    knowledge, attempt = finalizing(database, scope, 2)

    results = run_together(2, lambda i: ends.end_once(knowledge.id, attempt, "question", i + 1))

    assert all(r is not None and r.counted for r in results)
    assert [r.completed_round for r in results if r is not None].count(True) == 1
    assert state(database, knowledge.id) == ("completed", 0)
    # A late end of a completed round records nothing and counts nothing.
    assert ends.end_once(knowledge.id, attempt, "question", 3) is None
    assert not ends.ended(knowledge.id, attempt, "question", 3)


def test_an_end_of_another_round_records_nothing(database: Database, scope: Scope) -> None:
    ends = SubtaskEndRepository(database)
    knowledge, attempt = finalizing(database, scope, 1)

    assert ends.end_once(knowledge.id, attempt - 1, "question", 1) is None
    assert ends.end_once(knowledge.id, attempt + 1, "question", 1) is None
    assert not ends.ended(knowledge.id, attempt - 1, "question", 1)
    assert state(database, knowledge.id) == ("finalizing", 1)
