"""Sweep M: maintenance jobs (FAQ imports, knowledge moves, KB clones) whose worker died.

RQ hands a SIGKILLed worker's job back only once its time limit is over (2 h for an
import), so each round takes the jobs still pending or processing that were not written for
a task heartbeat TTL and asks the queue whether their group has a live task: one waiting,
or running with a fresh heartbeat (``TaskQueue.has_live_task``). One with none is queued
again — the dead task's record dropped first, so its job id can be used again — and it
resumes where it stopped: an import from its ``processed`` rows (a counted batch's
``pending_writes`` redone, each write idempotent), a move skipping the knowledges already
moved, a clone's plan queueing its items again (an ended item is a no-op).

The queue's own retries and these requeues share one budget, the task spec's attempts: the
job counts every attempt that started (``attempts``), and each death is at least one (a task
lost before it started counts too). A requeue gets only the attempts left (its spec's
retries cut to them); with none left the job fails saying how often its worker died.

Every write is guarded (MaintenanceJobRepository): of two housekeepers only one requeues,
and the bumped ``recoveries`` stops a superseded attempt whose worker was only frozen. In
lite mode the same sweep runs at startup (restart.py) over every job left in flight: the
in-process queue died with the previous process, so none has a live task.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from core.payloads import KbClonePlanPayload
from storage.db.models import FaqImportJob, KbCloneJob, KnowledgeMoveJob
from storage.db.repositories.maintenance_jobs import (
    MaintenanceJob,
    MaintenanceJobRepository,
    MaintenanceModel,
)
from storage.events.base import job_changed_event
from storage.queue.base import QueueError, TaskSpec
from workers import task_specs
from workers.faq_import.runner import discard_rows_file
from workers.housekeeping.lost_payloads import import_payload, move_payload
from workers.housekeeping.outcomes import Outcome
from workers.housekeeping.parts import HousekeepingParts
from workers.lifecycle.move.job import give_up

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Kind:
    """How one kind of maintenance job is found, queued again and given up."""

    noun: str
    model: MaintenanceModel
    group: Callable[[str], str]
    # The task that resumes the job; None when it cannot be rebuilt (no payload kept).
    spec: Callable[[HousekeepingParts, MaintenanceJob], TaskSpec | None]
    # What else a job given up needs besides its failed row.
    settle: Callable[[HousekeepingParts, MaintenanceJob, str], None]


def _import_spec(ctx: HousekeepingParts, job: MaintenanceJob) -> TaskSpec | None:
    assert isinstance(job, FaqImportJob)
    payload = import_payload(job)
    return task_specs.faq_import(payload) if payload is not None else None


def _move_spec(ctx: HousekeepingParts, job: MaintenanceJob) -> TaskSpec | None:
    assert isinstance(job, KnowledgeMoveJob)
    payload = move_payload(ctx, job)
    return task_specs.knowledge_move(payload) if payload is not None else None


def _clone_spec(ctx: HousekeepingParts, job: MaintenanceJob) -> TaskSpec | None:
    # The plan task of a planned job queues every item again (an ended one is a no-op).
    return task_specs.kb_clone(ctx.settings, KbClonePlanPayload(job.id))


def _settle_import(ctx: HousekeepingParts, job: MaintenanceJob, message: str) -> None:
    assert isinstance(job, FaqImportJob)
    payload = import_payload(job)
    if payload is not None:
        discard_rows_file(ctx, payload)


def _settle_move(ctx: HousekeepingParts, job: MaintenanceJob, message: str) -> None:
    """Every knowledge wholly in one knowledge base, as after a last failed try."""
    assert isinstance(job, KnowledgeMoveJob)
    payload = move_payload(ctx, job)
    if payload is not None:
        give_up(ctx, payload, message)


def _nothing(ctx: HousekeepingParts, job: MaintenanceJob, message: str) -> None:
    """A clone's items end one by one; the job's failed row is all there is to it."""


KINDS = (
    _Kind("import", FaqImportJob, task_specs.faq_import_group, _import_spec, _settle_import),
    _Kind("move", KnowledgeMoveJob, task_specs.knowledge_move_group, _move_spec, _settle_move),
    _Kind("clone", KbCloneJob, task_specs.kb_clone_group, _clone_spec, _nothing),
)


def sweep_maintenance(ctx: HousekeepingParts, before: datetime) -> Counter[str]:
    """Every kind's unattended jobs (not written since ``before``) judged and recovered."""
    report: Counter[str] = Counter()
    for kind in KINDS:
        repo = MaintenanceJobRepository(ctx.db, kind.model)
        for job in repo.unattended(before):
            try:
                report[_recover(ctx, repo, kind, job)] += 1
            except Exception:
                log.exception(
                    "housekeeping of %s job %s failed; next round retries", kind.noun, job.id
                )
                report[Outcome.ERRORS] += 1
    return report


def _recover(
    ctx: HousekeepingParts, repo: MaintenanceJobRepository, kind: _Kind, job: MaintenanceJob
) -> Outcome:
    group = kind.group(job.id)
    try:
        if ctx.queue.has_live_task(group):
            return Outcome.ALIVE
    except QueueError:
        log.warning("queue probe for %s job %s failed; skipped this round", kind.noun, job.id)
        return Outcome.SKIPPED
    spec = kind.spec(ctx, job)
    if spec is None:
        message = f"the {kind.noun} was stopped: its task was lost and cannot be queued again"
        return _give_up(ctx, repo, kind, job, message)
    left = spec.max_attempts - _spent(job)
    if left <= 0:
        return _give_up(ctx, repo, kind, job, _spent_message(ctx, kind, job, spec))
    if not repo.requeued(job):
        return Outcome.MOVED
    try:
        ctx.queue.forget_dead_tasks(group)
        ctx.queue.enqueue(replace(spec, at_front=True, max_retries=left - 1))
    except QueueError:
        # The row says one more recovery but nothing is queued: the next round finds it
        # without a live task again and queues it (using up one more attempt).
        log.exception("%s job %s: requeue failed; next round retries", kind.noun, job.id)
        return Outcome.ERRORS
    log.warning(
        "%s job %s: no live task (worker killed?); queued again with %d of its %d attempts",
        kind.noun,
        job.id,
        left,
        spec.max_attempts,
    )
    return Outcome.REQUEUED


def _give_up(
    ctx: HousekeepingParts,
    repo: MaintenanceJobRepository,
    kind: _Kind,
    job: MaintenanceJob,
    message: str,
) -> Outcome:
    if not repo.fail(job, message):
        return Outcome.MOVED
    try:
        ctx.queue.forget_dead_tasks(kind.group(job.id))
    except QueueError:
        log.warning("%s job %s: dead task records not dropped", kind.noun, job.id)
    kind.settle(ctx, job, message)
    ctx.publisher.publish(job_changed_event(job.id))
    log.warning("%s job %s: %s", kind.noun, job.id, message)
    return Outcome.FAILED


def _spent(job: MaintenanceJob) -> int:
    """Attempts used: those that started, and at least one per death, this one included."""
    return max(job.attempts, job.recoveries + 1)


def _spent_message(ctx: HousekeepingParts, kind: _Kind, job: MaintenanceJob, spec: TaskSpec) -> str:
    ttl = ctx.settings.queue.task_heartbeat_ttl_s
    return (
        f"the {kind.noun} was stopped: its worker was killed or lost {_times(job.recoveries + 1)}"
        f" (no task heartbeat for {ttl:g} s), and all of its {spec.max_attempts} attempts are"
        f" used ({job.attempts} started, queued again {_times(job.recoveries)})"
    )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
