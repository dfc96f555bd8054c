"""Pages of List RPCs: page sizes and opaque page tokens.

- ``page_size`` 0 is DEFAULT_PAGE_SIZE, more than MAX_PAGE_SIZE is clamped to it, negative
  is INVALID_ARGUMENT (a list may set its own default and maximum).
- A page token is opaque: base64url of a version, the position and a keyed BLAKE2b tag of
  both and of the query it belongs to (the RPC, its parent, its filters). A token that was
  altered, truncated or made for another query is INVALID_ARGUMENT. The position grants
  nothing (every query is scoped to the caller's tenant), so the tag is an integrity check,
  not a secret: its key is fixed, and every API process reads every other's tokens.
- A page holds at most as many items as fit in the response's byte budget (the edge's,
  server.api.budget): a Listing gives the token after however many were sent.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import struct
from dataclasses import dataclass
from typing import Generic, TypeVar

from core.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_VERSION = 1
_KEY = b"sluice.v1 page token"
_TAG_BYTES = 12
_LAYOUT = struct.Struct(">BQ")

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    limit: int
    offset: int
    query: str


@dataclass(frozen=True)
class Listing(Generic[T]):
    """A page of a list as read: its items, how many the whole list has, the page asked."""

    items: list[T]
    total: int
    page: Page

    def next_page_token(self, returned: int) -> str:
        """The token after the first ``returned`` items (a response may carry fewer)."""
        return next_page_token(self.page, returned, self.total)


def requested_page(
    page_size: int,
    page_token: str,
    query: str,
    *,
    default_size: int = DEFAULT_PAGE_SIZE,
    max_size: int = MAX_PAGE_SIZE,
) -> Page:
    """The page a request asks for; ``query`` names what is listed (see the module doc)."""
    if page_size < 0:
        raise InvalidArgument.field("page_size", "must be >= 0 (0 = the default)")
    limit = min(page_size or default_size, max_size)
    return Page(limit, _offset_of(page_token, query) if page_token else 0, query)


def next_page_token(page: Page, returned: int, total: int) -> str:
    """The token of the page after ``returned`` items of ``page``, "" after the last."""
    offset = page.offset + returned
    if offset >= total:
        return ""
    body = _LAYOUT.pack(_VERSION, offset)
    return base64.urlsafe_b64encode(body + _tag(body, page.query)).decode().rstrip("=")


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
    return hashlib.blake2b(body + query.encode(), key=_KEY, digest_size=_TAG_BYTES).digest()


def _foreign() -> Exception:
    return InvalidArgument.field(
        "page_token", "is not a token this server issued for this query; start without one"
    )
