"""The byte budget of a response: a page (or a search's results) holds at most as many
encoded items as fit under the message limit, whatever the items weigh; a page cut short
still has a next_page_token (server.services.paging.Listing), and one item is always
returned, so paging always advances."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from google.protobuf.message import Message

# gRPC's default receive limit in every language (grpcurl's too): a response under it is
# readable by a client that never raised it.
DEFAULT_CLIENT_MESSAGE_BYTES = 4 << 20
# Room in a response for what is not an item (its token, its total, the framing).
_ENVELOPE_BYTES = 64 << 10

M = TypeVar("M", bound=Message)


def response_budget(max_message_bytes: int) -> int:
    """Bytes of items one response may carry: under the server's limit and the clients'."""
    return max(min(max_message_bytes, DEFAULT_CLIENT_MESSAGE_BYTES) - _ENVELOPE_BYTES, 1)


def fitted(items: Sequence[M], budget: int) -> list[M]:
    """The longest head of ``items`` whose encoded sizes fit in ``budget`` (at least one)."""
    kept: list[M] = []
    used = 0
    for item in items:
        # Each repeated item costs its bytes plus its tag and length prefix (≤ 6 bytes).
        used += item.ByteSize() + 6
        if kept and used > budget:
            break
        kept.append(item)
    return kept
