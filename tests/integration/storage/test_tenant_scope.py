"""The tenant is part of the queries themselves: a read or write that names another
tenant finds nothing, even with the right ids; None (workers, admins) reads every tenant."""

from __future__ import annotations

from datetime import timedelta

from storage.db.engine import Database
from storage.db.models import utcnow
from storage.db.repositories.access_grants import AccessGrantRepository
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.resources import KNOWLEDGE_ORIGINAL, StorageResourceRepository
from storage.db.repositories.spans import SpanRepository
from storage.db.repositories.tags import TagRepository
from tests.integration.storage.conftest import Scope, new_scope
from tests.integration.storage.test_tags import new_tag


def test_reads_naming_another_tenant_find_nothing(database: Database, scope: Scope) -> None:
    other = new_scope(database).tenant_id
    tag = new_tag(database, scope, "mine")
    knowledges = KnowledgeRepository(database)
    row = knowledges.create(
        tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id, tag_ids=[tag]
    )
    chunks = ChunkRepository(database)
    chunks.insert_many(
        [
            NewChunk(
                tenant_id=scope.tenant_id,
                knowledge_base_id=scope.knowledge_base_id,
                knowledge_id=row.id,
                chunk_index=0,
                content="only mine",
            )
        ]
    )
    spans = SpanRepository(database)
    spans.upsert(row.id, 1, "docreader", status="running")
    chunk_id = chunks.list_by_knowledge(row.id, tenant_id=None)[0][0].id

    for tenant, seen in ((scope.tenant_id, True), (None, True), (other, False)):
        assert (knowledges.get(row.id, tenant) is not None) is seen
        assert bool(knowledges.get_many([row.id], tenant_id=tenant)) is seen
        assert bool(knowledges.reprocessable(scope.knowledge_base_id, tenant_id=tenant)) is seen
        listed, total = chunks.list_by_knowledge(row.id, tenant_id=tenant)
        assert (bool(listed), total > 0) == (seen, seen)
        assert bool(chunks.get_many([chunk_id], tenant_id=tenant)) is seen
        assert bool(spans.list(row.id, 1, tenant_id=tenant)) is seen
        assert bool(TagRepository(database).tags_of([row.id], tenant_id=tenant)[row.id]) is seen


def test_grants_are_revoked_only_by_their_resources_tenant(
    database: Database, scope: Scope
) -> None:
    other = new_scope(database).tenant_id
    resources = StorageResourceRepository(database)
    resource = resources.record(
        tenant_id=scope.tenant_id,
        path="local://a/b.txt",
        owner_type=KNOWLEDGE_ORIGINAL,
        owner_id="k",
        size=1,
    )
    assert resources.get(resource.id, other) is None
    assert resources.get(resource.id, scope.tenant_id) is not None
    grants = AccessGrantRepository(database)
    later = utcnow() + timedelta(minutes=5)
    assert grants.add("digest-one", resource.id, later)
    assert grants.add("digest-two", resource.id, later)

    assert grants.revoke("digest-one", other) == 0
    assert grants.revoke_for_resources([resource.id], other) == 0
    assert grants.find("digest-one") is not None
    assert grants.revoke("digest-one", scope.tenant_id) == 1
    assert grants.find("digest-one") is None
    assert grants.revoke_for_resources([resource.id], None) == 1
    assert grants.find("digest-two") is None
