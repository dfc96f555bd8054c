"""Calling the generated stubs: errors translated, required answers checked, paged lists
followed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from sluice_client.errors import ProtocolError, translated_rpc_errors

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")
_Item = TypeVar("_Item")


def call(rpc: Callable[[_Request], _Response], request: _Request) -> _Response:
    with translated_rpc_errors():
        return rpc(request)


def required(value: _Item | None, what: str) -> _Item:
    if value is None:
        raise ProtocolError(f"the server's response carried no {what}")
    return value


def pages(fetch: Callable[[str], tuple[Sequence[_Item], str]]) -> Iterator[_Item]:
    """Every item of a paged List RPC; `fetch(page_token)` returns (items, next_page_token)."""
    token = ""
    while True:
        with translated_rpc_errors():
            items, token = fetch(token)
        yield from items
        if not token:
            return
