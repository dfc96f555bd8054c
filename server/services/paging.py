"""Pages of List RPCs: page sizes, opaque page tokens, and a byte budget per response.

- ``page_size`` 0 is DEFAULT_PAGE_SIZE, more than MAX_PAGE_SIZE is clamped to it, negative
  is INVALID_ARGUMENT.
- A page token is opaque: base64url of a version, the position and a keyed BLAKE2b tag of
  both and of the query it belongs to (the RPC, its parent, its filters). A token that was
  altered, truncated or made for another query is INVALID_ARGUMENT. The position grants
  nothing (every query is scoped to the caller's tenant), so the tag is an integrity check,
  not a secret: its key is fixed, and every API process reads every other's tokens.
- A page holds at most as many items as fit in ``response_budget`` bytes, so no response
  goes over the message limit whatever the items weigh; a page cut short still has a
  ``next_page_token``. One item is always returned, so paging always advances.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf.message import Message

from core.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
# gRPC's default receive limit in every language (grpcurl's too): a response under it is
# readable by a client that never raised it.
DEFAULT_CLIENT_MESSAGE_BYTES = 4 << 20
# Room in a response for what is not an item (its token, its total, the framing).
_ENVELOPE_BYTES = 64 << 10
_VERSION = 1
_KEY = b"sluice.v1 page token"
_TAG_BYTES = 12
_LAYOUT = struct.Struct(">BQ")

M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class Page:
    limit: int
    offset: int
    query: str


def response_budget(max_message_bytes: int) -> int:
    """Bytes of items one response may carry: under the server's limit and the clients'."""
    return max(min(max_message_bytes, DEFAULT_CLIENT_MESSAGE_BYTES) - _ENVELOPE_BYTES, 1)


def requested_page(page_size: int, page_token: str, query: str) -> Page:
    """The page a request asks for; ``query`` names what is listed (see the module doc)."""
    if page_size < 0:
        raise InvalidArgument.field("page_size", "must be >= 0 (0 = the default)")
    limit = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    return Page(limit, _offset_of(page_token, query) if page_token else 0, query)


def next_page_token(page: Page, returned: int, total: int) -> str:
    """The token of the page after ``returned`` items of ``page``, "" after the last."""
    offset = page.offset + returned
    if offset >= total:
        return ""
    body = _LAYOUT.pack(_VERSION, offset)
    return base64.urlsafe_b64encode(body + _tag(body, page.query)).decode().rstrip("=")


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


def _offset_of(token: str, query: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError) as exc:
        raise _foreign() from exc
    body, tag = raw[: _LAYOUT.size], raw[_LAYOUT.size :]
    if len(body) != _LAYOUT.size or not hmac.compare_digest(tag, _tag(body, query)):
        raise _foreign()
    version, offset = _LAYOUT.unpack(body)
    if version != _VERSION:
        raise _foreign()
    return int(offset)


def _tag(body: bytes, query: str) -> bytes:
    return hashlib.blake2b(
        body + query.encode(), key=_KEY, digest_size=_TAG_BYTES
    ).digest()


def _foreign() -> Exception:
    return InvalidArgument.field(
        "page_token", "is not a token this server issued for this query; start without one"
    )
