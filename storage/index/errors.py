"""Errors raised by the index adapter; pymilvus exceptions never leak past it."""

from __future__ import annotations

from core.errors import SluiceError


class IndexStoreError(SluiceError):
    """An index operation failed (bad request, schema mismatch, server error)."""

    component = "index"


class IndexUnavailableError(IndexStoreError):
    """The index cannot be reached or opened right now; retrying later may succeed."""
