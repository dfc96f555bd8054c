"""Who a call acts for: what the services check ownership and scope queries by. The API
resolves it from the call's key (server.api.auth); services never see the key."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    tenant_id: str
    is_admin: bool

    def owns(self, tenant_id: str) -> bool:
        return self.is_admin or self.tenant_id == tenant_id

    @property
    def scope(self) -> str | None:
        """The tenant a repository query is limited to; None for an admin (every tenant)."""
        return None if self.is_admin else self.tenant_id
