"""Errors raised by the index adapter; pymilvus exceptions never leak past it."""

from __future__ import annotations


class IndexStoreError(Exception):
    """An index operation failed (bad request, schema mismatch, server error)."""


class IndexUnavailableError(IndexStoreError):
    """The index cannot be reached or opened right now; retrying later may succeed."""
