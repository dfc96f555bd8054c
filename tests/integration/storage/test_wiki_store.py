"""The wiki's repositories on real PostgreSQL and SQLite: claims that two tasks never share
(a task's retry takes its own back, a dead task's expire), page writes guarded by the
knowledge's round, its tombstone and the page's version, retracts that rebuild a page from
what remains or remove it, and the housekeeping trigger's throttle."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from storage.db.engine import Database
from storage.db.models import Knowledge, utcnow
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from storage.db.repositories.wiki_writes import Contribution, WikiPageWriter, WriteOutcome
from tests.integration.storage.conftest import Scope, run_together
from tests.support.wiki_pages import read_page


def finalizing(db: Database, scope: Scope, title: str, attempt: int = 1) -> Knowledge:
    return KnowledgeRepository(db).create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status="finalizing",
        attempt=attempt,
        title=title,
    )


def contribution(row: Knowledge, slug: str, text: str, **fields: Any) -> Contribution:
    values: dict[str, Any] = {
        "tenant_id": row.tenant_id,
        "knowledge_base_id": row.knowledge_base_id,
        "knowledge_id": row.id,
        "attempt": row.attempt,
        "slug": slug,
        "title": slug.title(),
        "body": text,
        "contribution": text,
        **fields,
    }
    return Contribution(**values)


def test_two_claimers_never_share_an_operation(database: Database, scope: Scope) -> None:
    ops = WikiOpRepository(database)
    for _ in range(12):
        row = finalizing(database, scope, "doc")
        ops.add_ingest(scope.tenant_id, scope.knowledge_base_id, row.id, 1)
        ops.add_ingest(scope.tenant_id, scope.knowledge_base_id, row.id, 1)  # once only
    lease = utcnow() - timedelta(hours=1)

    taken = run_together(
        3,
        lambda i: [
            op.id
            for op in ops.claim(
                scope.knowledge_base_id, f"task-{i}", limit=12, expired_before=lease
            )
        ],
    )

    ids = [op_id for batch in taken for op_id in batch]
    assert len(ids) == len(set(ids)) == 12
    # A retry of a task takes its own claims back; another task gets none of them.
    first = next(i for i, batch in enumerate(taken) if batch)
    again = ops.claim(scope.knowledge_base_id, f"task-{first}", limit=12, expired_before=lease)
    assert sorted(op.id for op in again) == sorted(taken[first])
    assert ops.claim(scope.knowledge_base_id, "late", limit=12, expired_before=lease) == []
    # Claims older than the lease belong to dead tasks: taken over.
    later = utcnow() + timedelta(seconds=1)
    assert len(ops.claim(scope.knowledge_base_id, "late", limit=12, expired_before=later)) == 12


def test_a_write_needs_the_round_current_no_tombstone_and_the_version_read(
    database: Database, scope: Scope
) -> None:
    writer, ops = WikiPageWriter(database), WikiOpRepository(database)
    crane, pier = finalizing(database, scope, "Crane log"), finalizing(database, scope, "Pier")

    assert writer.write(contribution(crane, "harbour", "Cranes."), 0) is WriteOutcome.WRITTEN
    # Read at version 0, written after another write: merge again.
    assert writer.write(contribution(pier, "harbour", "Piers."), 0) is WriteOutcome.CONFLICT
    assert writer.write(contribution(pier, "harbour", "Piers."), 1) is WriteOutcome.WRITTEN
    # An older round, and a deleted knowledge, write nothing.
    assert writer.write(contribution(pier, "harbour", "Old.", attempt=0), 2) is WriteOutcome.STALE
    ops.tombstone([(crane.id, scope.knowledge_base_id)])
    assert writer.write(contribution(crane, "harbour", "Late."), 2) is WriteOutcome.STALE

    page = writer.read(scope.knowledge_base_id, "harbour")
    assert (page.version, page.contributions) == (2, {crane.id: "Cranes.", pier.id: "Piers."})


def test_a_retract_rebuilds_pages_from_what_remains_and_removes_the_empty(
    database: Database, scope: Scope
) -> None:
    writer = WikiPageWriter(database)
    crane, pier = finalizing(database, scope, "Crane log"), finalizing(database, scope, "Pier")
    writer.write(contribution(crane, "harbour", "Cranes. See [Pier](wiki://pier)."), 0)
    writer.write(contribution(pier, "harbour", "Piers."), 1)
    writer.write(contribution(pier, "pier", "Oak."), 0)

    retracted = writer.retract([pier.id])

    assert retracted.removed == 1
    assert retracted.rebuilt == {scope.knowledge_base_id: ["harbour"]}
    assert read_page(database, scope.knowledge_base_id, "pier") is None
    detail = read_page(database, scope.knowledge_base_id, "harbour")
    assert detail is not None
    assert [s.knowledge_id for s in detail.sources] == [crane.id]
    assert detail.page.source_knowledge_ids == [crane.id]
    assert "Piers." not in detail.page.content and pier.id not in detail.page.content
    assert f"[Crane log](knowledge://{crane.id})" in detail.page.content
    assert detail.links == ["pier"]
    assert writer.retract([pier.id]).rebuilt == {}, "a retract runs again harmlessly"


def test_a_retract_of_old_rounds_keeps_the_newer_rounds_contribution(
    database: Database, scope: Scope
) -> None:
    writer = WikiPageWriter(database)
    row = finalizing(database, scope, "Crane log", attempt=2)
    writer.write(contribution(row, "harbour", "Round two."), 0)

    assert writer.retract([row.id], up_to_attempt=1).rebuilt == {}
    assert writer.read(scope.knowledge_base_id, "harbour").contributions == {row.id: "Round two."}


def test_housekeeping_triggers_a_knowledge_base_once_per_threshold(
    database: Database, scope: Scope
) -> None:
    ops = WikiOpRepository(database)
    now, threshold = utcnow(), timedelta(minutes=10)

    assert ops.mark_triggered(scope.knowledge_base_id, now, not_since=now - threshold)
    soon = now + threshold / 2
    assert not ops.mark_triggered(scope.knowledge_base_id, soon, not_since=soon - threshold)
    later = now + threshold * 2
    assert ops.mark_triggered(scope.knowledge_base_id, later, not_since=later - threshold)
