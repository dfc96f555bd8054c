"""The enrichment subtask counter: atomic decrements that converge on completed."""

from __future__ import annotations

from storage.db.engine import Database
from storage.db.models import Knowledge
from storage.db.repositories.knowledges import KnowledgeRepository
from tests.integration.storage.conftest import Scope, run_together


def finalizing(db: Database, scope: Scope, subtasks: int) -> tuple[Knowledge, int]:
    repo = KnowledgeRepository(db)
    knowledge = repo.create(tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id)
    attempt = repo.next_attempt(knowledge.id)
    assert repo.transition(knowledge.id, from_statuses=["pending"], to_status="processing")
    assert repo.transition(
        knowledge.id,
        from_statuses=["processing"],
        to_status="finalizing",
        attempt=attempt,
        pending_subtasks_count=subtasks,
    )
    return knowledge, attempt


def state(db: Database, knowledge_id: str) -> tuple[str, int]:
    stored = KnowledgeRepository(db).get(knowledge_id, None)
    assert stored is not None
    return stored.parse_status, stored.pending_subtasks_count


def test_finalize_subtask_completes_when_the_count_reaches_zero(
    database: Database, scope: Scope
) -> None:
    repo = KnowledgeRepository(database)
    knowledge, attempt = finalizing(database, scope, 3)

    assert repo.finalize_subtask(knowledge.id, attempt) is False
    assert repo.finalize_subtask(knowledge.id, attempt) is False
    assert state(database, knowledge.id) == ("finalizing", 1)
    assert repo.finalize_subtask(knowledge.id, attempt) is True
    assert state(database, knowledge.id) == ("completed", 0)
    stored = repo.get(knowledge.id, None)
    assert stored is not None and stored.processed_at is not None
    # An extra report can neither go negative nor complete twice.
    assert repo.finalize_subtask(knowledge.id, attempt) is False
    assert state(database, knowledge.id) == ("completed", 0)


def test_finalize_subtask_of_another_attempt_changes_nothing(
    database: Database, scope: Scope
) -> None:
    repo = KnowledgeRepository(database)
    knowledge, attempt = finalizing(database, scope, 1)
    assert repo.finalize_subtask(knowledge.id, attempt - 1) is False
    assert repo.finalize_subtask(knowledge.id, attempt + 1) is False
    assert state(database, knowledge.id) == ("finalizing", 1)


def test_concurrent_finalize_subtasks_complete_exactly_once(
    database: Database, scope: Scope
) -> None:
    repo = KnowledgeRepository(database)
    knowledge, attempt = finalizing(database, scope, 8)
    results = run_together(8, lambda _: repo.finalize_subtask(knowledge.id, attempt))
    assert results.count(True) == 1
    assert state(database, knowledge.id) == ("completed", 0)


def test_add_pending_subtasks(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge, attempt = finalizing(database, scope, 2)
    assert repo.add_pending_subtasks(knowledge.id, attempt, 3) == 5
    assert repo.add_pending_subtasks(knowledge.id, attempt - 1, 3) is None
    assert state(database, knowledge.id) == ("finalizing", 5)
    # Giving back subtasks that were never queued converges too, and never goes below 0.
    assert repo.add_pending_subtasks(knowledge.id, attempt, -9) == 0
    assert state(database, knowledge.id) == ("completed", 0)
