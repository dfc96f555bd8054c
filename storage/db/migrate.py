"""Run the Alembic migrations from code (no alembic.ini) and compare them with the models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from storage.db.engine import Database
from storage.db.models import Base

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # ConfigParser interpolation would eat "%" in passwords.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade_to_head(url: str) -> None:
    upgrade_to(url, "head")


def upgrade_to(url: str, revision: str) -> None:
    database = Database.from_url(url)
    try:
        with database.engine.connect() as connection:
            _run_with_sqlite_foreign_keys_off(connection, revision)
    finally:
        database.dispose()


def current_revision(url: str) -> str | None:
    database = Database.from_url(url)
    try:
        with database.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        database.dispose()


def head_revision() -> str | None:
    """The newest migration this code knows: what upgrade_to_head brings a database to."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def schema_diff(url: str) -> list[Any]:
    """What autogenerate would add to a new migration; empty when models == migrations."""
    database = Database.from_url(url)
    try:
        with database.engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        database.dispose()


def _run_with_sqlite_foreign_keys_off(connection: Connection, revision: str) -> None:
    """SQLite batch migrations rebuild tables (create copy, drop, rename); with foreign keys
    enforced, dropping a parent would cascade-delete its children. The pragma only takes
    effect outside a transaction, so it is set on the raw connection first."""
    config = alembic_config(connection.engine.url.render_as_string(hide_password=False))
    config.attributes["connection"] = connection
    if connection.dialect.name != "sqlite":
        command.upgrade(config, revision)
        return
    raw = connection.connection.driver_connection
    assert raw is not None
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        command.upgrade(config, revision)
        violations = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        connection.rollback()
        if violations:
            raise RuntimeError(f"migration left foreign key violations: {violations[:5]}")
    finally:
        raw.execute("PRAGMA foreign_keys=ON")
