"""Finding the knowledge an RPC names, as the caller may see it."""

from __future__ import annotations

from core.errors import InvalidArgument, NotFound
from server.api.auth import Identity
from storage.db.models import Knowledge
from workers.context import WorkerContext


def owned_knowledge(
    ctx: WorkerContext, identity: Identity, knowledge_id: str, field: str = "id"
) -> Knowledge:
    """The row; NOT_FOUND when it does not exist, belongs to another tenant or is being
    deleted (a deleting knowledge has already vanished for its users)."""
    if not knowledge_id:
        raise InvalidArgument.field(field, "is required")
    row = ctx.knowledges.get(knowledge_id, identity.scope)
    if row is None or not identity.owns(row.tenant_id) or row.parse_status == "deleting":
        raise NotFound("sluice.v1.Knowledge", knowledge_id)
    return row
