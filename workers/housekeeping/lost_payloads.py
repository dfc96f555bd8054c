"""The task payload of a maintenance job made before migration 0016, which kept none: built
again from the job's row where the row holds all of it, so sweep M can queue it again.

* An import whose rows were stored (``source_path``): its payload names that file. Rows
  that were in the payload itself are gone with the task: it cannot be rebuilt.
* A move in ``reuse_vectors`` mode: its knowledges and the source's index collection (the
  attempts are not used by such a move). In ``reparse`` mode only while every knowledge is
  still in the source, where its attempt now is the one the job was accepted at; one that
  reached the target may have had its round restarted already, and a wrong attempt would
  restart it twice.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.move_modes import MoveMode
from core.payloads import FaqImportPayload, KnowledgeMovePayload
from storage.db.models import FaqImportJob, Knowledge, KnowledgeMoveJob
from workers.housekeeping.parts import HousekeepingParts


def import_payload(job: FaqImportJob) -> FaqImportPayload | None:
    if job.task_payload is not None:
        return FaqImportPayload.from_dict(job.task_payload)
    if not job.source_path:
        return None
    return FaqImportPayload(
        job.id, job.tenant_id, job.knowledge_base_id, dry_run=job.dry_run, rows_path=job.source_path
    )


def move_payload(ctx: HousekeepingParts, job: KnowledgeMoveJob) -> KnowledgeMovePayload | None:
    if job.task_payload is not None:
        return KnowledgeMovePayload.from_dict(job.task_payload)
    source = ctx.knowledge_bases.get(None, job.source_knowledge_base_id)
    if source is None:
        return None
    rows = _rows(ctx, job.knowledge_ids)
    if job.mode != MoveMode.REUSE_VECTORS and any(
        row is not None and row.knowledge_base_id != source.id for row in rows
    ):
        return None
    return KnowledgeMovePayload(
        job.id,
        source.id,
        job.target_knowledge_base_id,
        job.mode,
        source.embedding_model_key,
        list(job.knowledge_ids),
        # A deleted one: the move counts it failed, whatever its attempt.
        [row.attempt if row is not None else 1 for row in rows],
    )


def _rows(ctx: HousekeepingParts, knowledge_ids: Sequence[str]) -> list[Knowledge | None]:
    found = {row.id: row for row in ctx.knowledges.get_many(knowledge_ids, tenant_id=None)}
    return [found.get(knowledge_id) for knowledge_id in knowledge_ids]
