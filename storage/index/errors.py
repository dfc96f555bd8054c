"""Errors raised by the index adapter; pymilvus exceptions never leak past it."""

from __future__ import annotations

from core.errors import SluiceError


class IndexStoreError(SluiceError):
    """An index operation failed (bad request, schema or dimension mismatch, server error):
    of no kind a caller can act on, so the edge answers INTERNAL; only IndexUnavailableError
    is the index being down."""


class IndexUnavailableError(IndexStoreError):
    """The index cannot be reached or opened right now; retrying later may succeed."""

    component = "index"
