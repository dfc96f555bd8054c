"""TagRepository and tag links written with the knowledge's insert, on real PostgreSQL and
SQLite: which ids are a knowledge base's tags, links in the insert's transaction (an insert
whose link fails leaves no row), tags read back in one query, and links gone with the
knowledge or the tag (ON DELETE CASCADE, which SQLite enforces only with foreign_keys on)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from storage.db.engine import Database
from storage.db.models import Knowledge, KnowledgeTag, Tag
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tags import TagRepository
from tests.integration.storage.conftest import Scope, new_scope


def new_tag(db: Database, scope: Scope, name: str) -> str:
    tag = Tag(tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, name=name)
    with db.session() as session:
        session.add(tag)
    return tag.id


def file_fields(scope: Scope, **fields: Any) -> dict[str, Any]:
    return {
        "tenant_id": scope.tenant_id,
        "knowledge_base_id": scope.knowledge_base_id,
        "type": "file",
        "file_name": "report.pdf",
        "file_type": "pdf",
        "file_size": 1000,
        "file_hash": "0123456789abcdef0123456789abcdef",
        **fields,
    }


def links_of(db: Database, knowledge_id: str) -> int:
    query = select(func.count()).where(KnowledgeTag.knowledge_id == knowledge_id)
    with db.session() as session:
        return session.scalar(query) or 0


def test_existing_names_only_the_knowledge_bases_own_tags(database: Database, scope: Scope) -> None:
    mine = new_tag(database, scope, "pumps")
    other_kb = new_scope(database)  # another tenant, so another knowledge base too
    theirs = new_tag(database, other_kb, "pumps")
    tags = TagRepository(database)

    assert tags.existing(scope.knowledge_base_id, [mine, theirs, "no-such-tag"]) == {mine}
    assert tags.existing(other_kb.knowledge_base_id, [mine, theirs]) == {theirs}
    assert tags.existing(scope.knowledge_base_id, []) == set()


def test_a_file_knowledge_is_inserted_with_its_links(database: Database, scope: Scope) -> None:
    valves, gates = new_tag(database, scope, "valves"), new_tag(database, scope, "gates")
    rows, tags = KnowledgeRepository(database), TagRepository(database)

    row, created = rows.create_unless_duplicate(
        tag_ids=[valves, gates, valves], **file_fields(scope)
    )
    untagged = rows.create(**file_fields(scope, file_name="other.pdf", file_hash=""))

    assert created
    assert tags.tags_of([row.id, untagged.id, "no-such-knowledge"], tenant_id=None) == {
        row.id: sorted([valves, gates]),
        untagged.id: [],
        "no-such-knowledge": [],
    }
    assert tags.tags_of([], tenant_id=None) == {}


def test_a_duplicate_gets_no_links(database: Database, scope: Scope) -> None:
    tag = new_tag(database, scope, "pumps")
    rows, tags = KnowledgeRepository(database), TagRepository(database)
    first, _ = rows.create_unless_duplicate(**file_fields(scope))

    again, created = rows.create_unless_duplicate(tag_ids=[tag], **file_fields(scope))

    assert not created and again.id == first.id
    assert tags.tags_of([first.id], tenant_id=None) == {first.id: []}


def test_url_and_manual_knowledges_are_inserted_with_their_links(
    database: Database, scope: Scope
) -> None:
    tag = new_tag(database, scope, "harbour")
    rows, tags = KnowledgeRepository(database), TagRepository(database)

    page, created = rows.create_unless_url_duplicate(
        tag_ids=[tag],
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        type="url",
        source="https://example.org/harbour",
    )
    manual = rows.create(
        tag_ids=[tag],
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        type="manual",
        content="Boats moor at the east quay.",
    )

    assert created
    assert tags.tags_of([page.id, manual.id], tenant_id=None) == {page.id: [tag], manual.id: [tag]}


def test_a_link_that_fails_takes_the_insert_with_it(database: Database, scope: Scope) -> None:
    """A tag deleted between the check and the insert: the foreign key refuses the link and
    the knowledge row is rolled back with it."""
    rows = KnowledgeRepository(database)
    with pytest.raises(IntegrityError):
        rows.create_unless_duplicate(tag_ids=["vanished-tag"], **file_fields(scope))
    with pytest.raises(IntegrityError):
        rows.create(tag_ids=["vanished-tag"], **file_fields(scope, file_name="b.pdf"))

    assert rows.list(scope.tenant_id, scope.knowledge_base_id) == ([], 0)


def test_links_go_with_the_knowledge_and_with_the_tag(database: Database, scope: Scope) -> None:
    kept_tag, doomed_tag = new_tag(database, scope, "kept"), new_tag(database, scope, "doomed")
    rows, tags = KnowledgeRepository(database), TagRepository(database)
    doomed = rows.create(tag_ids=[kept_tag], **file_fields(scope))
    kept = rows.create(tag_ids=[kept_tag, doomed_tag], **file_fields(scope, file_name="k.pdf"))

    assert rows.delete(doomed.id)
    with database.session() as session:
        session.execute(delete(Tag).where(Tag.id == doomed_tag))

    assert links_of(database, doomed.id) == 0
    assert tags.tags_of([kept.id], tenant_id=None) == {kept.id: [kept_tag]}
    with database.session() as session:
        assert session.get(Knowledge, kept.id) is not None
