"""The database handle: one Engine and its session factory, for PostgreSQL or SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

SQLITE_BUSY_TIMEOUT_MS = 30_000


def normalize_url(url: str) -> URL:
    """Plain ``postgresql://`` URLs get the psycopg 3 driver; others pass through."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


class Database:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(bind=engine, expire_on_commit=False)

    @classmethod
    def from_url(cls, url: str, *, echo: bool = False) -> Database:
        parsed = normalize_url(url)
        if parsed.get_backend_name() == "sqlite":
            return cls(_sqlite_engine(parsed, echo=echo))
        return cls(create_engine(parsed, echo=echo, pool_pre_ping=True))

    @property
    def engine(self) -> Engine:
        return self._engine

    @property
    def dialect_name(self) -> str:
        return self._engine.dialect.name

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self._sessions() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self._engine.dispose()


def _sqlite_engine(url: URL, *, echo: bool) -> Engine:
    in_memory = url.database in (None, "", ":memory:")
    options: dict[str, Any] = {
        # The pool hands each connection to one thread at a time, so sharing is safe.
        "connect_args": {"check_same_thread": False},
        "echo": echo,
    }
    if in_memory:
        # Every connection to ":memory:" would be a new empty database: keep exactly one.
        options["poolclass"] = StaticPool
    engine = create_engine(url, **options)
    event.listen(engine, "connect", _configure_sqlite_connection)
    event.listen(engine, "begin", _begin_immediate)
    return engine


def _configure_sqlite_connection(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin (see below).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def _begin_immediate(connection: Connection) -> None:
    # A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when
    # another writer got in between; taking the write lock up front makes it wait
    # (busy_timeout) instead, so concurrent threads and processes serialise cleanly.
    connection.exec_driver_sql("BEGIN IMMEDIATE")
