"""MoveKnowledge and its progress: checked inside the call, run as a knowledge:move task
on the maintenance queue (workers.lifecycle.move).

Checked before anything is written: 1 to ``MAX_MOVE`` distinct knowledges of the caller,
all of one knowledge base (the source), none being processed or deleted (refused, not
waited for: a round in flight writes its products under the source while the move would
carry them off; FAILED_PRECONDITION names them, move them once they are processed), not
an FAQ knowledge base's own knowledge (FAILED_PRECONDITION KNOWLEDGE_BASE_IS_FAQ: it holds
all the entries, whose questions are unique per knowledge base; a clone syncs them); a
target of the caller's that is not the source, of the source's type and embedding model
(FAILED_PRECONDITION KB_TYPE_MISMATCH or EMBEDDING_MODEL_MISMATCH, naming both).

The mode: reuse_vectors needs both knowledge bases to share the vector store. This
deployment has one index (one Milvus) with one collection per index key
(core.index_sides: the embedding model's key, or the keyword-only one), so the two share
it when their index keys are equal and they write the same sides (dense, keyword): a row
relabelled to the target is then exactly the row the target would have written. Unspecified
is reuse_vectors when they share it, else reparse; reuse_vectors asked for where they do not
is FAILED_PRECONDITION VECTOR_STORE_NOT_SHARED."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core.effective_config import resolve
from core.errors import FailedPrecondition, InvalidArgument, NotFound, Unavailable
from core.index_sides import index_sides
from core.move_modes import MoveMode
from core.payloads import KnowledgeMovePayload
from core.statuses import JobStatus, KnowledgeBaseType
from server.services.identity import Identity
from server.services.kb_compatibility import check_compatible
from server.services.kb_types import KB_IS_FAQ
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.parts import KnowledgeParts
from storage.db.engine import Database
from storage.db.models import Knowledge, KnowledgeBase, KnowledgeMoveJob
from storage.db.repositories.knowledge_moves import UNMOVABLE, KnowledgeMoveRepository
from storage.queue.base import QueueError
from workers import task_specs
from workers.pipeline.round.parts import QueueParts

# Knowledges per call: one job moves them one by one, its row lists them all.
MAX_MOVE = 100


class KnowledgeMoveParts(KnowledgeParts, QueueParts, Protocol):
    @property
    def db(self) -> Database: ...


@dataclass(frozen=True)
class MoveAccepted:
    job_id: str
    mode: MoveMode


class KnowledgeMoveService:
    def __init__(self, ctx: KnowledgeMoveParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases
        self._jobs = KnowledgeMoveRepository(ctx.db)

    def move(
        self,
        identity: Identity,
        knowledge_ids: list[str],
        target_kb_id: str,
        mode: MoveMode | None,
    ) -> MoveAccepted:
        rows = self._knowledges(identity, knowledge_ids)
        if not target_kb_id:
            raise InvalidArgument.field("target_knowledge_base_id", "is required")
        target = self._kbs.get_row(identity, target_kb_id)
        source_ids = {row.knowledge_base_id for row in rows}
        if len(source_ids) > 1:
            raise InvalidArgument.field(
                "ids", f"must all be of one knowledge base; they are of {sorted(source_ids)}"
            )
        source = self._kbs.get_row(identity, source_ids.pop())
        if source.id == target.id:
            raise InvalidArgument.field(
                "target_knowledge_base_id", "is the knowledges' own knowledge base"
            )
        if source.type == KnowledgeBaseType.FAQ:
            raise FailedPrecondition(
                KB_IS_FAQ,
                source.id,
                f"knowledge base {source.id} is an FAQ knowledge base: its one knowledge holds "
                "all its entries and does not move; clone the knowledge base instead "
                "(CloneKnowledgeBase with target_id syncs its entries into an existing one)",
            )
        check_compatible(source, target, by_index=False)
        busy = [row.id for row in rows if row.parse_status in UNMOVABLE]
        if busy:
            raise FailedPrecondition(
                "KNOWLEDGE_BEING_PROCESSED",
                ",".join(busy),
                f"knowledges being processed or deleted cannot move: {', '.join(busy)}; "
                "move them once they are processed",
            )
        chosen = _mode(source, target, mode)
        job = self._jobs.create_job(
            tenant_id=rows[0].tenant_id,
            source_knowledge_base_id=source.id,
            target_knowledge_base_id=target.id,
            mode=chosen,
            knowledge_ids=[row.id for row in rows],
        )
        payload = KnowledgeMovePayload(
            job_id=job.id,
            source_knowledge_base_id=source.id,
            target_knowledge_base_id=target.id,
            mode=chosen,
            source_index_key=source.embedding_model_key,
            knowledge_ids=[row.id for row in rows],
            attempts=[row.attempt for row in rows],
        )
        # What housekeeping queues again if a worker dies running it.
        self._jobs.keep_payload(job.id, payload.to_dict())
        try:
            self._ctx.queue.enqueue(task_specs.knowledge_move(payload))
        except QueueError as exc:  # nothing moved yet: the job says so and the call fails
            self._jobs.finish(job.id, JobStatus.FAILED, f"could not be queued: {exc}")
            raise Unavailable("queue", f"the move could not be queued: {exc}") from exc
        return MoveAccepted(job.id, chosen)

    def progress(self, identity: Identity, job_id: str) -> KnowledgeMoveJob:
        if not job_id:
            raise InvalidArgument.field("job_id", "is required")
        job = self._jobs.get_job(job_id, identity.scope)
        if job is None:
            raise NotFound("sluice.v1.MoveProgress", job_id)
        return job

    def _knowledges(self, identity: Identity, knowledge_ids: list[str]) -> list[Knowledge]:
        requested = list(dict.fromkeys(i for i in knowledge_ids if i))
        if not requested:
            raise InvalidArgument.field("ids", "name at least one knowledge")
        if len(requested) > MAX_MOVE:
            raise InvalidArgument.field("ids", f"at most {MAX_MOVE} knowledges per call")
        found = {
            row.id: row
            for row in self._ctx.knowledges.get_many(requested, tenant_id=identity.scope)
            if identity.owns(row.tenant_id)
        }
        for knowledge_id in requested:
            if knowledge_id not in found:
                raise NotFound("sluice.v1.Knowledge", knowledge_id)
        return [found[i] for i in requested]


def shares_vector_store(source: KnowledgeBase, target: KnowledgeBase) -> bool:
    """One collection, written on the same sides (see the module's docstring)."""
    if source.embedding_model_key != target.embedding_model_key:
        return False
    sides = [
        index_sides(kb.embedding_model_key, resolve(kb.config or {}, None))
        for kb in (source, target)
    ]
    return sides[0] == sides[1]


def _mode(source: KnowledgeBase, target: KnowledgeBase, asked: MoveMode | None) -> MoveMode:
    shared = shares_vector_store(source, target)
    if asked is None:
        return MoveMode.REUSE_VECTORS if shared else MoveMode.REPARSE
    if asked is MoveMode.REUSE_VECTORS and not shared:
        raise FailedPrecondition(
            "VECTOR_STORE_NOT_SHARED",
            target.id,
            "reuse_vectors needs both knowledge bases in one index collection with the same "
            f"indexing: the source indexes into {source.embedding_model_key!r}, the target "
            f"into {target.embedding_model_key!r} (or their vector/keyword switches differ); "
            "use reparse",
        )
    return asked
