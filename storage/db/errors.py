"""Errors the repositories raise for conditions callers are expected to handle."""

from __future__ import annotations


class NotFoundError(LookupError):
    """The row an operation needs does not exist."""


class AlreadyExistsError(Exception):
    """A unique name (knowledge base, tag…) is already taken."""
