"""pymilvus calls that take more than one request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pymilvus import MilvusClient, MilvusException

_T = TypeVar("_T")
_NOT_LOADED = 101  # "collection not loaded" on Milvus and milvus-lite alike
_QUERY_PAGE = 1000


def with_reload(client: MilvusClient, name: str, call: Callable[[], _T]) -> _T:
    """Run `call`, loading the collection once if it was released (e.g. after a restart)."""
    try:
        return call()
    except MilvusException as exc:
        if exc.code != _NOT_LOADED:
            raise
    client.load_collection(name)
    return call()


def query_all(
    client: MilvusClient, name: str, expr: str, fields: list[str], *, lite: bool
) -> list[dict[str, Any]]:
    """Every row matching `expr`. A Milvus server caps one query's result window, so pages are
    fetched with an iterator there; milvus-lite returns everything at once (and its lack of
    session timestamps would make the iterator log a warning on each call)."""
    if lite:
        return with_reload(
            client, name, lambda: list(client.query(name, filter=expr, output_fields=fields))
        )

    def run() -> list[dict[str, Any]]:
        iterator = client.query_iterator(
            name, batch_size=_QUERY_PAGE, filter=expr, output_fields=fields
        )
        rows: list[dict[str, Any]] = []
        try:
            while page := iterator.next():
                rows.extend(page)
        finally:
            iterator.close()
        return rows

    return with_reload(client, name, run)
