"""Finding the knowledge an RPC names, as the caller may see it."""

from __future__ import annotations

from server.api.auth import Identity
from server.api.errors import invalid_argument, not_found
from server.services.parts import KnowledgeParts
from storage.db.models import Knowledge


def owned_knowledge(
    ctx: KnowledgeParts, identity: Identity, knowledge_id: str, field: str = "id"
) -> Knowledge:
    """The row; NOT_FOUND when it does not exist, belongs to another tenant or is being
    deleted (a deleting knowledge has already vanished for its users)."""
    if not knowledge_id:
        raise invalid_argument(field, "is required")
    row = ctx.knowledges.get(knowledge_id, identity.scope)
    if row is None or not identity.owns(row.tenant_id) or row.parse_status == "deleting":
        raise not_found("sluice.v1.Knowledge", knowledge_id)
    return row
