"""API keys in `authorization: Bearer …` metadata resolve to a tenant.

When auth is not required (lite mode's default) a call without a key acts as the default
tenant, so the quickstart needs no key; a key that is sent is always checked.

Resolved keys are cached only while a revocation feed is live (full mode: Redis pub/sub,
see ``server.api.key_revocations``): every notice empties the cache, so a revoked key stops
working on every API process as soon as the notice arrives. Without a live feed (lite mode,
whose admin tool is another process, or while Redis is unreachable) every call reads the
database, so revocation is immediate there too.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Iterable
from typing import Any

import grpc

from core.clock import SYSTEM_CLOCK, Clock
from server.api.errors import ApiError
from server.services.identity import Identity
from storage.db.repositories.tenants import TenantRepository

# Bounds a cached key's life even if a notice were lost without the feed noticing.
CACHE_TTL_S = 30.0
# Bounded so that a flood of made-up keys cannot grow the process.
_CACHE_MAX_ENTRIES = 10_000

Metadata = Iterable[tuple[str, str | bytes]]


# The caller of the RPC being served, set by the auth interceptor for the call's task.
_CALLER: contextvars.ContextVar[Identity | None] = contextvars.ContextVar(
    "sluice_caller", default=None
)


class Authenticator:
    def __init__(
        self,
        tenants: TenantRepository,
        *,
        required: bool,
        default_tenant_id: str,
        clock: Clock = SYSTEM_CLOCK,
    ):
        self._tenants = tenants
        # What a cached key's life is judged by.
        self._clock = clock
        self._required = required
        self._default = Identity(default_tenant_id, is_admin=False)
        self._cache: dict[str, tuple[float, Identity | None]] = {}
        self._feed_live = False
        # Bumped by every invalidation: a lookup that started before one is not cached.
        self._generation = 0

    async def identify(self, context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
        """The caller: the one the interceptor resolved for this call, else resolved now."""
        caller = _CALLER.get()
        if caller is not None:
            return caller
        return await self.identify_metadata(context.invocation_metadata() or ())

    async def authenticate(self, metadata: Metadata) -> None:
        """Resolve the caller of a new call and remember it for the call's handler."""
        _CALLER.set(await self.identify_metadata(metadata))

    async def identify_metadata(self, metadata: Metadata) -> Identity:
        key = _bearer(metadata)
        if key is None:
            if self._required:
                raise ApiError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "missing API key: send metadata 'authorization: Bearer <key>'",
                )
            return self._default
        identity = await self._resolve(key)
        if identity is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, "invalid or revoked API key")
        return identity

    def feed_started(self) -> None:
        """The revocation feed is live: from now on notices reach us, so caching is safe."""
        self.forget_all()
        self._feed_live = True

    def feed_lost(self) -> None:
        """Notices may be missed from now on: stop caching."""
        self._feed_live = False
        self.forget_all()

    def forget_all(self) -> None:
        self._cache.clear()
        self._generation += 1

    async def _resolve(self, key: str) -> Identity | None:
        cached = self._cache.get(key)
        if cached and cached[0] > self._clock.monotonic():
            return cached[1]
        generation = self._generation
        resolved = await asyncio.to_thread(self._tenants.resolve_api_key, key)
        identity = Identity(resolved.tenant_id, resolved.is_admin) if resolved else None
        if self._feed_live and generation == self._generation:
            if len(self._cache) >= _CACHE_MAX_ENTRIES:
                self._cache.clear()
            self._cache[key] = (self._clock.monotonic() + CACHE_TTL_S, identity)
        return identity


def _bearer(metadata: Metadata) -> str | None:
    for name, value in metadata:
        if name == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None
