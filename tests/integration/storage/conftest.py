"""Real PostgreSQL and SQLite databases, migrated with our Alembic migrations."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.tenants import TenantRepository
from tests.support.databases import postgres_database

BACKENDS = ("postgresql", "sqlite")

T = TypeVar("T")


@contextmanager
def empty_database_url(backend: str, directory: Path) -> Iterator[str]:
    """A database with no tables, removed afterwards."""
    if backend == "postgresql":
        with postgres_database() as url:
            yield url
    else:
        yield f"sqlite:///{directory / f'sluice-{uuid.uuid4().hex[:8]}.db'}"


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with empty_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="session", params=BACKENDS)
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """One migrated database per backend for the session; tests isolate by fresh tenants."""
    with empty_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        upgrade_to_head(url)
        db = Database.from_url(url)
        try:
            yield db
        finally:
            db.dispose()


@dataclass(frozen=True)
class Scope:
    tenant_id: str
    knowledge_base_id: str


def new_scope(database: Database) -> Scope:
    tenant = TenantRepository(database).create_tenant(f"tenant-{uuid.uuid4().hex[:6]}")
    kb = KnowledgeBaseRepository(database).create(tenant.id, "kb")
    return Scope(tenant.id, kb.id)


@pytest.fixture
def scope(database: Database) -> Scope:
    """A fresh tenant with one knowledge base."""
    return new_scope(database)


def run_together(workers: int, job: Callable[[int], T]) -> list[T]:
    """Run ``job(i)`` in ``workers`` threads released at the same instant."""
    barrier = threading.Barrier(workers)

    def start(index: int) -> T:
        barrier.wait()
        return job(index)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(start, range(workers)))
