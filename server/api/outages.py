"""Outages that reach a handler as a library's own exception, not a Sluice error: the
repositories hand SQLAlchemy's errors up unwrapped (the workers' retry and housekeeping
code tells a lost connection from other failures by them), and a Redis client may fail
outside the queue adapter."""

from __future__ import annotations

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError, OperationalError
from sqlalchemy.exc import InterfaceError as DatabaseInterfaceError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

_DATABASE_DOWN = (OperationalError, DatabaseInterfaceError, DisconnectionError, PoolTimeoutError)


def foreign_outage(exc: BaseException) -> str | None:
    """The component ``exc`` says is unreachable, None if it says no such thing."""
    if isinstance(exc, _DATABASE_DOWN):
        return "database"
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return "database"
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        return "Redis"
    return None
