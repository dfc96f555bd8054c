"""Small SQL helpers that hide the few differences between PostgreSQL and SQLite."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult, Result
from sqlalchemy.dialects import postgresql, sqlite

from storage.db.models import Base


def dialect_insert(dialect_name: str, entity: type[Base]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that supports ``on_conflict_do_update`` / ``on_conflict_do_nothing``."""
    if dialect_name == "postgresql":
        return postgresql.insert(entity)
    if dialect_name == "sqlite":
        return sqlite.insert(entity)
    raise ValueError(f"unsupported database dialect {dialect_name!r}: use PostgreSQL or SQLite")


def affected_rows(result: Result[Any]) -> int:
    """Rows matched by an UPDATE or DELETE (both databases count matched, not changed)."""
    return cast(CursorResult[Any], result).rowcount
