"""Access grants: expiring bearer tokens that open one catalogued resource (read with the
gRPC ResourceService.ReadResource, the token in the request: never in a URL, where proxies
and access logs would keep it).

A token is 32 random bytes (256 bits), URL-safe base64. The database keeps only its SHA-256
digest: the table is a list of live credentials, and whoever reads it (a backup, a replica,
a leaked dump) must not be able to use them. A slow, salted hash buys nothing here: the
token is random, not a password, so its digest cannot be guessed back, and a plain digest
can still be looked up by index.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from core.errors import SluiceError

TOKEN_BYTES = 32


class GrantRefusal(StrEnum):
    # No such grant: never issued, mistyped, or expired and since purged.
    UNKNOWN = "unknown"
    EXPIRED = "expired"


class GrantRefused(SluiceError):
    """The token opens nothing (see ``reason``); a deleted resource is DeletedResource."""

    def __init__(self, reason: GrantRefusal) -> None:
        super().__init__(f"access grant refused: {reason.value}")
        self.reason = reason


@dataclass(frozen=True)
class IssuedGrant:
    token: str
    resource_ref: str
    expires_at: datetime


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_digest(token: str) -> str:
    """What the database stores and looks up: 64 hex characters."""
    return hashlib.sha256(token.encode()).hexdigest()
