"""Edits of a knowledge's own fields after it was created: its metadata (with the upload's
limits) and its tags (each a tag of its knowledge base). Neither is part of what is
indexed, so neither touches the index; a metadata change is an input of the summary: it
queues a summary refresh (storage.db.repositories.summary_stale)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.errors import Aborted, NotFound
from server.services.identity import Identity
from server.services.lookup import owned_knowledge
from server.services.parts import KnowledgeEditParts
from server.services.request_limits import check_metadata
from server.services.summary_refresh import queue_refresh_after_edit
from server.services.tags import TaggedKnowledge, checked_tag_ids, tagged


class KnowledgeEditService:
    def __init__(self, ctx: KnowledgeEditParts) -> None:
        self._ctx = ctx

    def update_metadata(
        self, identity: Identity, knowledge_id: str, metadata: Mapping[str, str]
    ) -> TaggedKnowledge:
        """Replace the metadata; a change bumps its version (an equal one changes nothing)."""
        knowledge = owned_knowledge(self._ctx, identity, knowledge_id, "knowledge_id")
        check_metadata(metadata, "metadata")
        update = self._ctx.edits.update_metadata(knowledge.id, identity.scope, metadata)
        if update is None:  # deleted meanwhile
            raise NotFound("sluice.v1.Knowledge", knowledge_id)
        queue_refresh_after_edit(self._ctx.queue, update.knowledge, update.summary_refresh)
        return tagged(self._ctx.tags, update.knowledge)

    def set_tags(
        self, identity: Identity, knowledge_id: str, tag_ids: Sequence[str]
    ) -> TaggedKnowledge:
        """Replace the knowledge's tags; INVALID_ARGUMENT on ``tag_ids`` naming any that is
        not a tag of its knowledge base (nothing changes then)."""
        knowledge = owned_knowledge(self._ctx, identity, knowledge_id, "knowledge_id")
        kb_id = knowledge.knowledge_base_id
        wanted = checked_tag_ids(self._ctx.tags, kb_id, tag_ids, "tag_ids")
        if self._ctx.edits.replace_tags(knowledge.id, kb_id, wanted):
            # A tag was deleted since the check: refused as if it had been gone all along.
            checked_tag_ids(self._ctx.tags, kb_id, wanted, "tag_ids")
            raise Aborted("TAGS_CHANGED", knowledge.id, "the knowledge base's tags changed; retry")
        return tagged(self._ctx.tags, owned_knowledge(self._ctx, identity, knowledge.id))
