"""Scopes and concurrency helpers of the storage tests; the databases themselves are the
shared ``database`` and ``empty_db_url`` fixtures (tests/support/fixtures.py)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import pytest

from storage.db.engine import Database
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.tenants import TenantRepository

T = TypeVar("T")


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
