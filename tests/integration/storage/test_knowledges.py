"""KnowledgeRepository against real databases: dedup, listing, the guarded state machine."""

from __future__ import annotations

from typing import Any

import pytest

from core.statuses import ParseStatus
from storage.db.engine import Database
from storage.db.errors import NotFoundError
from storage.db.models import Knowledge, Tag
from storage.db.repositories.edits import KnowledgeEditRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tags import TagRepository
from tests.integration.storage.conftest import Scope, new_scope, run_together

HASH = "0123456789abcdef0123456789abcdef"


def make(db: Database, scope: Scope, **fields: Any) -> Knowledge:
    values: dict[str, Any] = {
        "tenant_id": scope.tenant_id,
        "knowledge_base_id": scope.knowledge_base_id,
        "file_name": "report.pdf",
        "file_type": "pdf",
        "file_size": 1000,
        "file_hash": HASH,
    }
    return KnowledgeRepository(db).create(**{**values, **fields})


# --- duplicate detection --------------------------------------------------------------


def dup(db: Database, scope: Scope, **overrides: Any) -> Knowledge | None:
    query: dict[str, Any] = {
        "file_hash": HASH,
        "file_type": "pdf",
        "file_name": "report.pdf",
        "file_size": 1000,
    }
    query.update(overrides)
    return KnowledgeRepository(db).find_duplicate(scope.tenant_id, scope.knowledge_base_id, **query)


def test_same_hash_is_a_duplicate_even_under_another_name(database: Database, scope: Scope) -> None:
    existing = make(database, scope)
    found = dup(database, scope, file_name="renamed.pdf", file_size=999)
    assert found is not None and found.id == existing.id


def test_same_name_and_size_is_a_duplicate_even_with_another_hash(
    database: Database, scope: Scope
) -> None:
    existing = make(database, scope)
    found = dup(database, scope, file_hash="f" * 32)
    assert found is not None and found.id == existing.id


def test_same_name_but_other_size_and_hash_is_not_a_duplicate(
    database: Database, scope: Scope
) -> None:
    make(database, scope)
    assert dup(database, scope, file_hash="f" * 32, file_size=1001) is None


def test_other_file_type_is_not_a_duplicate(database: Database, scope: Scope) -> None:
    make(database, scope, file_name="notes.md", file_type="md")
    # Identical bytes as .txt coexist with the .md (spec: FileType is part of the rule).
    assert dup(database, scope, file_name="notes.txt", file_type="txt") is None
    assert dup(database, scope, file_name="notes.md", file_type="md") is not None


def test_file_type_comparison_ignores_case(database: Database, scope: Scope) -> None:
    make(database, scope, file_type="PDF")
    assert dup(database, scope, file_type="pdf") is not None


@pytest.mark.parametrize("status", [ParseStatus.FAILED, ParseStatus.DELETING])
def test_failed_and_deleting_rows_are_ignored(
    database: Database, scope: Scope, status: str
) -> None:
    knowledge = make(database, scope)
    assert KnowledgeRepository(database).transition(
        knowledge.id, from_statuses=[ParseStatus.PENDING], to_status=status
    )
    assert dup(database, scope) is None


@pytest.mark.parametrize(
    "status", [ParseStatus.PENDING, ParseStatus.COMPLETED, ParseStatus.CANCELLED]
)
def test_rows_in_other_states_still_count(database: Database, scope: Scope, status: str) -> None:
    knowledge = make(database, scope)
    KnowledgeRepository(database).transition(
        knowledge.id, from_statuses=[ParseStatus.PENDING], to_status=status
    )
    assert dup(database, scope) is not None


def test_same_file_in_another_knowledge_base_or_tenant_is_not_a_duplicate(
    database: Database, scope: Scope
) -> None:
    make(database, new_scope(database))
    assert dup(database, scope) is None


def test_empty_hash_never_matches_rows_without_a_hash(database: Database, scope: Scope) -> None:
    make(database, scope, file_hash="", file_name="a.pdf")
    assert dup(database, scope, file_hash="") is None


# --- reading and listing ------------------------------------------------------------------


def test_get_is_tenant_scoped_unless_tenant_is_none(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    assert repo.get(knowledge.id, scope.tenant_id) is not None
    assert repo.get(knowledge.id, "another-tenant") is None
    assert repo.get(knowledge.id, None) is not None
    assert repo.get("missing", None) is None


def test_created_row_has_the_spec_initial_state(database: Database, scope: Scope) -> None:
    knowledge = make(database, scope)
    stored = KnowledgeRepository(database).get(knowledge.id, None)
    assert stored is not None
    assert (stored.parse_status, stored.enable_status, stored.summary_status) == (
        "pending",
        "disabled",
        "none",
    )
    assert (stored.attempt, stored.pending_subtasks_count, stored.meta) == (0, 0, {})


def test_list_filters_and_pages(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    a = make(database, scope, title="Annual Report", file_name="a.pdf")
    b = make(database, scope, title="notes", file_name="Q3_100%.DOCX", file_type="docx")
    c = make(database, scope, title="draft", file_name="c.md", file_type="md")
    deleting = make(database, scope, title="gone", file_name="d.pdf")
    repo.transition(deleting.id, from_statuses=["pending"], to_status="deleting")
    repo.transition(c.id, from_statuses=["pending"], to_status="completed")

    def ids(**kwargs: Any) -> set[str]:
        items, total = repo.list(scope.tenant_id, scope.knowledge_base_id, **kwargs)
        assert total == len(items)
        return {k.id for k in items}

    assert ids() == {a.id, b.id, c.id}
    assert ids(statuses=["deleting"]) == {deleting.id}
    assert ids(statuses=["pending", "completed"]) == {a.id, b.id, c.id}
    assert ids(keyword="REPORT") == {a.id}
    assert ids(keyword="q3_100%") == {b.id}  # LIKE wildcards are matched literally
    assert ids(keyword="_") == {b.id}
    assert ids(file_type="DOCX") == {b.id}
    assert repo.list("another-tenant", scope.knowledge_base_id) == ([], 0)

    page, total = repo.list(scope.tenant_id, scope.knowledge_base_id, limit=2, offset=0)
    rest, _ = repo.list(scope.tenant_id, scope.knowledge_base_id, limit=2, offset=2)
    assert total == 3 and len(page) == 2 and len(rest) == 1
    assert [k.id for k in page + rest] == [c.id, b.id, a.id]  # newest first


def test_list_by_tag_and_replace_tags(database: Database, scope: Scope) -> None:
    repo, tags = KnowledgeRepository(database), TagRepository(database)
    edits = KnowledgeEditRepository(database)
    tagged, untagged = make(database, scope), make(database, scope, file_name="x.pdf")
    with database.session() as session:
        tag_a = Tag(tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, name="a")
        tag_b = Tag(tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, name="b")
        session.add_all([tag_a, tag_b])

    kb_id = scope.knowledge_base_id
    assert edits.replace_tags(tagged.id, kb_id, [tag_a.id, tag_b.id, tag_a.id]) == set()
    items, total = repo.list(scope.tenant_id, scope.knowledge_base_id, tag_id=tag_b.id)
    assert [k.id for k in items] == [tagged.id] and total == 1
    assert tags.tags_of([tagged.id, untagged.id], tenant_id=None) == {
        tagged.id: sorted([tag_a.id, tag_b.id]),
        untagged.id: [],
    }

    assert edits.replace_tags(tagged.id, kb_id, [tag_a.id]) == set()
    assert tags.tags_of([tagged.id], tenant_id=None) == {tagged.id: [tag_a.id]}


# --- the guarded state machine ---------------------------------------------------------


def test_transition_moves_only_from_the_given_states(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    assert repo.transition(knowledge.id, from_statuses=["pending"], to_status="processing")
    assert repo.transition(knowledge.id, from_statuses=["processing"], to_status="completed")
    # A late worker cannot drag the row back.
    assert not repo.transition(knowledge.id, from_statuses=["pending"], to_status="processing")
    assert not repo.transition(knowledge.id, from_statuses=["processing"], to_status="failed")
    stored = repo.get(knowledge.id, None)
    assert stored is not None and stored.parse_status == "completed"


def test_transition_sets_fields_and_bumps_updated_at(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    assert repo.transition(
        knowledge.id,
        from_statuses=["pending"],
        to_status="failed",
        error_message="boom",
        meta={"k": "v"},
    )
    stored = repo.get(knowledge.id, None)
    assert stored is not None
    assert (stored.parse_status, stored.error_message, stored.meta) == (
        "failed",
        "boom",
        {"k": "v"},
    )
    assert stored.updated_at > knowledge.updated_at


def test_transition_with_attempt_only_touches_that_attempt(
    database: Database, scope: Scope
) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    current = repo.next_attempt(knowledge.id)
    stale = current - 1
    assert not repo.transition(
        knowledge.id, from_statuses=["pending"], to_status="processing", attempt=stale
    )
    assert repo.transition(
        knowledge.id, from_statuses=["pending"], to_status="processing", attempt=current
    )


def test_transition_refuses_unknown_and_guarded_fields(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    with pytest.raises(TypeError):
        repo.transition(knowledge.id, from_statuses=["pending"], to_status="x", bogus=1)
    with pytest.raises(TypeError):
        repo.update_fields(knowledge.id, parse_status="completed")
    with pytest.raises(TypeError):
        repo.update_fields(knowledge.id, attempt=5, id="other")


def test_racing_transitions_from_the_same_state_have_exactly_one_winner(
    database: Database, scope: Scope
) -> None:
    repo = KnowledgeRepository(database)
    for _ in range(10):
        knowledge_id = make(database, scope).id

        def claim(worker: int, knowledge_id: str = knowledge_id) -> bool:
            return repo.transition(
                knowledge_id,
                from_statuses=["pending"],
                to_status="processing",
                channel=f"worker-{worker}",
            )

        results = run_together(4, claim)
        assert sorted(results) == [False, False, False, True]
        stored = repo.get(knowledge_id, None)
        assert stored is not None
        assert stored.channel == f"worker-{results.index(True)}"


def test_update_fields_is_guarded_by_attempt(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    attempt = repo.next_attempt(knowledge.id)
    assert not repo.update_fields(knowledge.id, attempt=attempt - 1, title="stale")
    assert repo.update_fields(knowledge.id, attempt=attempt, title="fresh")
    assert repo.update_fields(knowledge.id, summary="any attempt")
    assert not repo.update_fields("missing", title="x")
    stored = repo.get(knowledge.id, None)
    assert stored is not None and (stored.title, stored.summary) == ("fresh", "any attempt")


def test_touch_bumps_updated_at(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    assert repo.touch(knowledge.id)
    stored = repo.get(knowledge.id, None)
    assert stored is not None and stored.updated_at > knowledge.updated_at
    assert not repo.touch("missing")


def test_next_attempt_is_atomic_under_concurrency(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    per_thread = 5
    results = run_together(
        8, lambda _: [repo.next_attempt(knowledge.id) for _ in range(per_thread)]
    )
    values = [value for batch in results for value in batch]
    assert sorted(values) == list(range(1, 8 * per_thread + 1))
    stored = repo.get(knowledge.id, None)
    assert stored is not None and stored.attempt == 8 * per_thread


def test_next_attempt_of_a_missing_row_raises(database: Database) -> None:
    with pytest.raises(NotFoundError):
        KnowledgeRepository(database).next_attempt("missing")


def test_delete_removes_the_row(database: Database, scope: Scope) -> None:
    repo = KnowledgeRepository(database)
    knowledge = make(database, scope)
    assert repo.delete(knowledge.id)
    assert repo.get(knowledge.id, None) is None
    assert not repo.delete(knowledge.id)


def test_racing_identical_uploads_create_exactly_one_row(database: Database, scope: Scope) -> None:
    repository = KnowledgeRepository(database)

    def upload(index: int) -> bool:
        _, created = repository.create_unless_duplicate(
            tenant_id=scope.tenant_id,
            knowledge_base_id=scope.knowledge_base_id,
            file_name=f"copy-{index}.pdf",
            file_type="pdf",
            file_size=1000,
            file_hash=HASH,
        )
        return created

    assert sorted(run_together(8, upload)) == [False] * 7 + [True]
    rows, total = repository.list(scope.tenant_id, scope.knowledge_base_id, limit=50, offset=0)
    assert total == 1 and rows[0].file_hash == HASH


def test_create_unless_duplicate_returns_the_existing_row(database: Database, scope: Scope) -> None:
    first = make(database, scope)
    row, created = KnowledgeRepository(database).create_unless_duplicate(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        file_name="other.pdf",
        file_type="PDF",
        file_size=5,
        file_hash=HASH,
    )
    assert not created and row.id == first.id
