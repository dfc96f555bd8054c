"""KnowledgeBaseRepository against real databases."""

from __future__ import annotations

import pytest

from storage.db.engine import Database
from storage.db.errors import AlreadyExistsError
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.tenants import TenantRepository


def tenant(database: Database) -> str:
    return TenantRepository(database).create_tenant("t").id


def test_create_and_get_are_tenant_scoped(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    owner, stranger = tenant(database), tenant(database)
    config = {"chunking": {"chunkSize": 512}, "indexing": {"vectorEnabled": True}}
    kb = repo.create(
        owner,
        "docs",
        description="d",
        type="faq",
        config=config,
        embedding_model_key="local/all-MiniLM-L6-v2/384",
        storage_backend_id="s3-main",
    )

    got = repo.get(owner, kb.id)
    assert got is not None
    assert (got.name, got.type, got.config, got.embedding_model_key, got.storage_backend_id) == (
        "docs",
        "faq",
        config,
        "local/all-MiniLM-L6-v2/384",
        "s3-main",
    )
    assert repo.get(stranger, kb.id) is None
    assert repo.get(None, kb.id) is not None  # admin


def test_names_are_unique_per_tenant(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    owner, other = tenant(database), tenant(database)
    first = repo.create(owner, "docs")
    repo.create(other, "docs")
    with pytest.raises(AlreadyExistsError):
        repo.create(owner, "docs")

    second = repo.create(owner, "more")
    with pytest.raises(AlreadyExistsError):
        repo.update(owner, second.id, name="docs")
    with pytest.raises(AlreadyExistsError):
        repo.update(None, second.id, name="docs")
    assert repo.update(owner, first.id, name="docs") is not None  # unchanged name is fine


def test_list_pages_oldest_first(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    owner = tenant(database)
    ids = [repo.create(owner, f"kb{i}").id for i in range(3)]
    page, total = repo.list(owner, limit=2, offset=0)
    rest, _ = repo.list(owner, limit=2, offset=2)
    assert total == 3
    assert [kb.id for kb in page + rest] == ids
    everything, admin_total = repo.list(None, limit=1000)
    assert admin_total >= 3 and set(ids) <= {kb.id for kb in everything}


def test_update_sets_fields_and_bumps_updated_at(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    owner = tenant(database)
    kb = repo.create(owner, "docs")
    updated = repo.update(owner, kb.id, description="new", config={"faq": {}})
    assert updated is not None
    assert (updated.description, updated.config) == ("new", {"faq": {}})
    assert updated.updated_at > kb.updated_at
    assert repo.update("stranger", kb.id, description="x") is None
    with pytest.raises(TypeError):
        repo.update(owner, kb.id, id="stolen")


def test_delete_is_tenant_scoped(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    owner = tenant(database)
    kb = repo.create(owner, "docs")
    assert not repo.delete("stranger", kb.id)
    assert repo.delete(owner, kb.id)
    assert repo.get(owner, kb.id) is None


def test_count_knowledges_excludes_deleting(database: Database) -> None:
    repo = KnowledgeBaseRepository(database)
    knowledges = KnowledgeRepository(database)
    owner = tenant(database)
    kb, empty = repo.create(owner, "docs"), repo.create(owner, "empty")
    rows = [knowledges.create(tenant_id=owner, knowledge_base_id=kb.id) for _ in range(3)]
    knowledges.transition(rows[0].id, from_statuses=["pending"], to_status="deleting")
    knowledges.transition(rows[1].id, from_statuses=["pending"], to_status="failed")

    assert repo.count_knowledges(kb.id) == 2
    assert repo.count_knowledges_by_base([kb.id, empty.id]) == {kb.id: 2, empty.id: 0}
