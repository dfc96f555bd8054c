"""DeleteKnowledge and BatchDeleteKnowledge (the chain is ``workers.lifecycle.deletion``).

A single delete runs the whole chain inside the call: it is one knowledge (one index
delete by filter, a few SQL deletes, a few files, well under a second), and the caller
gets read-your-writes: when the call returns, Search no longer finds it. If the process
dies midway the row stays deleting, hidden from List, and housekeeping's deletion sweep
hands it back as failed so it can be deleted again.

A batch marks every row deleting inside the call (so they vanish from List at once) and
runs the rest as one knowledge:list_delete task on the maintenance queue; if that task
cannot be queued, the chain runs inside the call instead, so the marked rows never wait
for a task that does not exist.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from core.errors import InvalidArgument, NotFound
from core.payloads import KnowledgeListDeletePayload
from server.services.identity import Identity
from server.services.lookup import owned_knowledge
from server.services.parts import KnowledgeDeletionParts
from storage.queue.base import QueueError
from workers import task_specs
from workers.lifecycle.deletion import delete_marked, mark_deleting

log = logging.getLogger(__name__)

MAX_BATCH = 1000


@dataclass(frozen=True)
class BatchDeleted:
    deleted: int
    failed_ids: list[str]


class DeletionService:
    def __init__(self, ctx: KnowledgeDeletionParts) -> None:
        self._ctx = ctx

    def delete(self, identity: Identity, knowledge_id: str) -> None:
        row = owned_knowledge(self._ctx, identity, knowledge_id)
        marked = mark_deleting(self._ctx, [row.id])
        if not marked:  # a concurrent delete marked it first
            raise NotFound("sluice.v1.Knowledge", row.id)
        delete_marked(self._ctx, marked)

    def batch_delete(self, identity: Identity, knowledge_ids: Sequence[str]) -> BatchDeleted:
        """``deleted`` counts the knowledges accepted (marked deleting); ``failed_ids`` are
        the ones unknown, not the caller's or already being deleted."""
        requested = list(dict.fromkeys(i for i in knowledge_ids if i))
        if not requested:
            raise InvalidArgument.field("ids", "name at least one knowledge")
        if len(requested) > MAX_BATCH:
            raise InvalidArgument.field("ids", f"at most {MAX_BATCH} knowledges per call")
        visible = [
            row.id
            for row in self._ctx.knowledges.get_many(requested, tenant_id=identity.scope)
            if identity.owns(row.tenant_id)
        ]
        marked = mark_deleting(self._ctx, visible)
        marked_ids = {row.id for row in marked}
        if marked:
            payload = KnowledgeListDeletePayload(knowledge_ids=[row.id for row in marked])
            try:
                self._ctx.queue.enqueue(task_specs.knowledge_list_delete(payload))
            except QueueError:
                log.exception("queueing knowledge:list_delete failed; deleting inline")
                delete_marked(self._ctx, marked)
        return BatchDeleted(
            deleted=len(marked), failed_ids=[i for i in requested if i not in marked_ids]
        )
