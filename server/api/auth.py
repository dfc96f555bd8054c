"""API keys in `authorization: Bearer …` metadata resolve to a tenant.

When auth is not required (lite mode's default) a call without a key acts as the default
tenant, so the quickstart needs no key; a key that is sent is always checked.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import grpc

from server.api.errors import ApiError
from storage.db.repositories.tenants import TenantRepository

_CACHE_TTL_S = 30.0
# Bounded so that a flood of made-up keys cannot grow the process.
_CACHE_MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class Identity:
    tenant_id: str
    is_admin: bool

    def owns(self, tenant_id: str) -> bool:
        return self.is_admin or self.tenant_id == tenant_id


class Authenticator:
    def __init__(self, tenants: TenantRepository, *, required: bool, default_tenant_id: str):
        self._tenants = tenants
        self._required = required
        self._default = Identity(default_tenant_id, is_admin=False)
        self._cache: dict[str, tuple[float, Identity | None]] = {}

    async def identify(self, context: grpc.aio.ServicerContext[Any, Any]) -> Identity:
        key = _bearer(context)
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

    async def _resolve(self, key: str) -> Identity | None:
        cached = self._cache.get(key)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        resolved = await asyncio.to_thread(self._tenants.resolve_api_key, key)
        identity = Identity(resolved.tenant_id, resolved.is_admin) if resolved else None
        if len(self._cache) >= _CACHE_MAX_ENTRIES:
            self._cache.clear()
        self._cache[key] = (time.monotonic() + _CACHE_TTL_S, identity)
        return identity


def _bearer(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    for name, value in context.invocation_metadata() or ():
        if name == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None
