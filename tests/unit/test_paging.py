"""Page sizes, opaque page tokens (server.services.paging) and the byte budget of a
response (server.api.budget)."""

from __future__ import annotations

import base64

import grpc
import pytest
from sluice.v1 import knowledge_pb2

from server.api.budget import DEFAULT_CLIENT_MESSAGE_BYTES, fitted, response_budget
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.paging import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    Page,
    next_page_token,
    requested_page,
)

QUERY = "chunks:k1"


def _refused_field(size: int, token: str, query: str = QUERY) -> str:
    with pytest.raises(ApiError) as refused, translated():
        requested_page(size, token, query)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    return refused.value.details[0].field_violations[0].field  # type: ignore[attr-defined,no-any-return]


def test_page_sizes_default_and_clamp() -> None:
    assert requested_page(0, "", QUERY).limit == DEFAULT_PAGE_SIZE
    assert requested_page(7, "", QUERY).limit == 7
    assert requested_page(MAX_PAGE_SIZE * 10, "", QUERY).limit == MAX_PAGE_SIZE
    assert _refused_field(-1, "") == "page_size"


def test_a_token_resumes_where_the_page_ended_and_is_opaque() -> None:
    first = requested_page(10, "", QUERY)
    token = next_page_token(first, 10, 35)
    assert not token.isdigit() and "10" not in token
    assert requested_page(10, token, QUERY).offset == 10
    assert next_page_token(Page(10, 30, QUERY), 5, 35) == ""


def test_altered_foreign_and_made_up_tokens_are_invalid_argument() -> None:
    token = next_page_token(requested_page(10, "", QUERY), 10, 100)
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[8] ^= 1  # another offset, same tag
    altered = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
    for bad in (altered, token[:-2], "10", "not base64 !", token + "AAAA"):
        assert _refused_field(10, bad) == "page_token", bad
    # A token of one query does not resume another (another knowledge, other filters).
    assert _refused_field(10, token, "chunks:k2") == "page_token"


def _chunk(chars: int) -> knowledge_pb2.Chunk:
    return knowledge_pb2.Chunk(id="c", content="я" * chars)


def test_a_page_holds_what_fits_in_the_budget() -> None:
    items = [_chunk(50_000) for _ in range(100)]  # 100 KB each
    kept = fitted(items, 1_000_000)
    assert len(kept) == 9
    response = knowledge_pb2.ListChunksResponse(chunks=kept, next_page_token="x" * 40, total=100)
    assert response.ByteSize() <= 1_000_000
    # One item always goes out, so paging always advances.
    assert len(fitted([_chunk(2_000_000)], 1_000_000)) == 1
    assert len(fitted(items[:3], 1_000_000)) == 3


def test_the_budget_stays_under_the_server_and_the_default_client_limits() -> None:
    assert response_budget(64 << 20) < DEFAULT_CLIENT_MESSAGE_BYTES
    assert response_budget(1 << 20) < 1 << 20
