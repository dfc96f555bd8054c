"""Alembic environment: runs on the connection ``storage.db.migrate`` passes in, or on the
URL in the config (``sqlalchemy.url``) when invoked through the alembic CLI."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection

from storage.db.engine import Database
from storage.db.models import Base, UTCDateTime


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    # Migrations stay free of imports from our models: UTCDateTime only converts values.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_on(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite can alter little in place; batch mode rebuilds tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection given and sqlalchemy.url is not set")
    database = Database.from_url(url)
    try:
        with database.engine.connect() as connection:
            run_on(connection)
    finally:
        database.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (--sql) migrations are not supported")
main()
