"""knowledge:move — a MoveKnowledge job run on the maintenance queue.

Knowledges are moved one by one (``reuse`` or ``reparse``), the job's row written and
``job_changed_event`` published after each. One that cannot be moved any more (processing,
deleted or moved elsewhere since the job was accepted) stays where it is and is counted
failed with why: trying it again would fail the same way. Anything else (the index or the
database unreachable) fails the try, and the queue tries again; the next try skips what is
done, because each move finds its own work done. Once every knowledge is moved or failed,
both knowledge bases' profiles are refreshed and the job completes.

After the last try failed (``give_up``), every knowledge is put wholly in one knowledge
base: one still in the source gets back any index rows relabelled to the target; one in
the target has its move finished (reuse_vectors) or, when its new round could not be
queued (reparse), is marked failed with why, so a Reparse processes it. The job fails with
the reason."""

from __future__ import annotations

import logging

from core.move_modes import MoveMode
from core.payloads import KnowledgeMovePayload
from core.statuses import JobStatus, ParseStatus
from storage.db.models import KnowledgeMoveJob
from storage.db.repositories.knowledge_moves import KnowledgeMoveRepository
from storage.db.repositories.maintenance_jobs import MaintenanceJobRepository
from storage.events.base import job_changed_event
from workers.lifecycle.move.parts import MoveParts
from workers.lifecycle.move.reparse import move_reparsing
from workers.lifecycle.move.reuse import NotMovable, move_reusing_vectors, undo_index
from workers.pipeline.round.cleanup import remove_round_products
from workers.profile_request import request_profile_refresh

log = logging.getLogger(__name__)


def run_move(ctx: MoveParts, payload: KnowledgeMovePayload) -> None:
    jobs = KnowledgeMoveRepository(ctx.db)
    job = jobs.get_job(payload.job_id, None)
    if job is None or job.status in (JobStatus.COMPLETED, JobStatus.FAILED):
        return
    # Retried by the queue or requeued by housekeeping, an attempt uses up the one budget.
    MaintenanceJobRepository(ctx.db, KnowledgeMoveJob).attempt_started(job.id)
    # Failures are final (see above); everything else is counted again from the rows.
    failures: dict[str, str] = {str(k): str(v) for k, v in (job.failures or {}).items()}
    done = 0
    # Housekeeping queues the job again when this attempt's worker looks dead; if this one
    # was only frozen, its next record fails and it stops before moving another knowledge.
    if not _record(ctx, jobs, payload.job_id, done, failures, job.recoveries):
        return
    for knowledge_id, attempt in zip(payload.knowledge_ids, payload.attempts, strict=True):
        if knowledge_id in failures:
            continue
        try:
            _move_one(ctx, payload, knowledge_id, attempt)
            done += 1
        except NotMovable as exc:
            failures[knowledge_id] = str(exc)
        if not _record(ctx, jobs, payload.job_id, done, failures, job.recoveries):
            log.warning("move job %s: ended or superseded; this attempt stops", payload.job_id)
            return
    _refresh_profiles(ctx, payload)
    jobs.finish(payload.job_id, JobStatus.COMPLETED)
    ctx.publisher.publish(job_changed_event(payload.job_id))
    log.info("move job %s: %d moved, %d not", payload.job_id, done, len(failures))


def give_up(ctx: MoveParts, payload: KnowledgeMovePayload, error: str) -> None:
    """The last try failed: every knowledge wholly in one knowledge base, the job failed."""
    for knowledge_id, attempt in zip(payload.knowledge_ids, payload.attempts, strict=True):
        try:
            _settle(ctx, payload, knowledge_id, attempt, error)
        except Exception:  # one knowledge's trouble must not keep the job from failing
            log.exception("move job %s: knowledge %s not settled", payload.job_id, knowledge_id)
    _refresh_profiles(ctx, payload)
    jobs = KnowledgeMoveRepository(ctx.db)
    jobs.finish(payload.job_id, JobStatus.FAILED, f"the move failed: {error}")
    ctx.publisher.publish(job_changed_event(payload.job_id))


def _move_one(
    ctx: MoveParts, payload: KnowledgeMovePayload, knowledge_id: str, attempt: int
) -> None:
    row = ctx.knowledges.get(knowledge_id, None)
    if row is None:
        raise NotMovable("the knowledge was deleted")
    source, target = payload.source_knowledge_base_id, payload.target_knowledge_base_id
    if payload.mode == MoveMode.REUSE_VECTORS:
        move_reusing_vectors(ctx, row, source, target, payload.source_index_key)
    else:
        move_reparsing(ctx, row, attempt, source, target, payload.source_index_key)


def _settle(
    ctx: MoveParts, payload: KnowledgeMovePayload, knowledge_id: str, attempt: int, error: str
) -> None:
    row = ctx.knowledges.get(knowledge_id, None)
    if row is None:
        return
    target = payload.target_knowledge_base_id
    if payload.mode == MoveMode.REUSE_VECTORS:
        if row.knowledge_base_id == target:
            _move_one(ctx, payload, knowledge_id, attempt)  # its graph and wiki follow
        else:
            undo_index(ctx, row, target, payload.source_index_key)
        return
    if row.knowledge_base_id == target and row.attempt == attempt:
        # Moved, its new round never opened: nothing of it left in the source's
        # collection, and failed, so a Reparse processes it.
        remove_round_products(ctx, row.id, attempt, payload.source_index_key, and_older=True)
        ctx.knowledges.transition(
            row.id,
            from_statuses=[s for s in ParseStatus if s != ParseStatus.DRAFT],
            to_status=ParseStatus.FAILED,
            attempt=attempt,
            error_message=f"moved, but not processed again: {error}; use Reparse",
        )


def _record(
    ctx: MoveParts,
    jobs: KnowledgeMoveRepository,
    job_id: str,
    done: int,
    failures: dict[str, str],
    recoveries: int,
) -> bool:
    recorded = jobs.record(
        job_id, done=done, failures=failures, status=JobStatus.PROCESSING, recoveries=recoveries
    )
    ctx.publisher.publish(job_changed_event(job_id))
    return recorded


def _refresh_profiles(ctx: MoveParts, payload: KnowledgeMovePayload) -> None:
    """Both descriptions changed: one lost documents, the other gained them."""
    for kb_id in (payload.source_knowledge_base_id, payload.target_knowledge_base_id):
        request_profile_refresh(ctx, kb_id)
