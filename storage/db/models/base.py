"""Declarative base and the column types every table shares.

Conventions, so PostgreSQL and SQLite behave the same:
- primary keys are ``str(uuid4())`` strings;
- timestamps are timezone-aware UTC in Python (``UTCDateTime`` normalises what SQLite hands
  back naive);
- JSON is JSONB on PostgreSQL and JSON text elsewhere;
- statuses are plain lower-case strings (see ``core.statuses``);
- strings the API exposes as plain text are NOT NULL with ``""`` as default, while values
  that only exist once something has happened (errors, parent references, end times,
  durations, outputs) are NULL until then.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, DateTime, Dialect, MetaData
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator, TypeEngine

# Named constraints let Alembic batch mode (SQLite table rebuilds) address them.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# None is stored as SQL NULL (not JSON "null"), so IS NULL means "absent" on both databases.
JSONType: TypeEngine[Any] = JSON(none_as_null=True).with_variant(
    JSONB(none_as_null=True), "postgresql"
)


def new_id() -> str:
    return str(uuid.uuid4())


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that only accepts and only returns aware UTC datetimes."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: timestamps must be timezone-aware")
        value = value.astimezone(UTC)
        # SQLite stores the wall clock as text; comparisons stay correct only if every
        # stored value is UTC and carries no offset suffix.
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSONType,
        list[str]: JSONType,
    }
