"""Throwaway PostgreSQL (or SQLite) databases and Redis key prefixes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import redis

ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def postgres_database() -> Iterator[str]:
    """Yields a SQLAlchemy URL of a fresh database, dropped afterwards."""
    name = f"sluice_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def empty_database_url(backend: str, directory: Path) -> Iterator[str]:
    """A database of ``backend`` ("postgresql" or "sqlite") with no tables, removed afterwards."""
    if backend == "postgresql":
        with postgres_database() as url:
            yield url
    else:
        yield f"sqlite:///{directory / f'sluice-{uuid.uuid4().hex[:8]}.db'}"


@dataclass(frozen=True)
class RoleDatabase:
    """A database owned by its own login role, so a test can lock that role out."""

    url: str
    role: str


@contextmanager
def postgres_role_database() -> Iterator[RoleDatabase]:
    """Yields a fresh non-superuser role and a database it owns; both dropped afterwards."""
    suffix = uuid.uuid4().hex[:10]
    role, name = f"sluice_t_{suffix}", f"sluice_test_{suffix}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'CREATE DATABASE "{name}" OWNER "{role}"')
    try:
        yield RoleDatabase(f"postgresql+psycopg://{role}@127.0.0.1:5432/{name}", role)
    finally:
        with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def _set_login(role: str, allowed: bool) -> None:
    """Let ``role`` log in, or lock it out and end the sessions it has."""
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'ALTER ROLE "{role}" {"LOGIN" if allowed else "NOLOGIN"}')
        if not allowed:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                (role,),
            )


@contextmanager
def locked_out(database: RoleDatabase) -> Iterator[None]:
    """The database is gone for its role inside the block, back afterwards."""
    _set_login(database.role, allowed=False)
    try:
        yield
    finally:
        _set_login(database.role, allowed=True)


@contextmanager
def redis_prefix() -> Iterator[str]:
    """Yields a key prefix; every key under it, and RQ's record of its queues, is deleted
    afterwards."""
    prefix = f"sluice-test-{uuid.uuid4().hex[:10]}"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        # RQ keys embed the queue name, which embeds the prefix.
        for key in client.scan_iter(match=f"*{prefix}*", count=1000):
            client.delete(key)
        for member in client.smembers("rq:queues"):
            if prefix.encode() in member:
                client.srem("rq:queues", member)
        client.close()
