"""Finding what an RPC names, as the caller may see it: the one tenant ownership check."""

from __future__ import annotations

from typing import Protocol, TypeVar

from core.errors import InvalidArgument, NotFound
from core.statuses import ParseStatus
from server.services.identity import Identity
from server.services.parts import KnowledgeParts
from storage.db.models import Knowledge


class _Tenanted(Protocol):
    @property
    def tenant_id(self) -> str: ...


Row = TypeVar("Row", bound=_Tenanted)


def visible(identity: Identity, row: Row | None, resource_type: str, name: str) -> Row:
    """``row`` when the caller may see it (its tenant's, or any for an admin); NOT_FOUND
    alike when it is missing or another tenant's, so no one learns that an id of another
    tenant exists."""
    if row is None or not identity.owns(row.tenant_id):
        raise NotFound(resource_type, name)
    return row


def owned_knowledge(
    ctx: KnowledgeParts, identity: Identity, knowledge_id: str, field: str = "id"
) -> Knowledge:
    """The row; NOT_FOUND when it does not exist, belongs to another tenant or is being
    deleted (a deleting knowledge has already vanished for its users)."""
    if not knowledge_id:
        raise InvalidArgument.field(field, "is required")
    row = ctx.knowledges.get(knowledge_id, identity.scope)
    if row is not None and row.parse_status == ParseStatus.DELETING:
        row = None
    return visible(identity, row, "sluice.v1.Knowledge", knowledge_id)
