"""Errors the repositories raise for conditions callers are expected to handle."""

from __future__ import annotations

from core.errors import SluiceError


class NotFoundError(SluiceError, LookupError):
    """The row an operation needs does not exist."""


class AlreadyExistsError(SluiceError):
    """A unique name (knowledge base, tag…) is already taken."""
