"""kb:clone: the difference between a source knowledge base and its clone, planned once.

Knowledges are matched by identity: a clone records its source knowledge's id and round
(``clone_source_id``, ``clone_source_attempt``). A name or file hash would not do: two
uploads may share either, a manual knowledge has no file, and a reparsed source keeps its
name and hash while its chunks change. So, between the source and the target:

* a completed source knowledge without a completed clone of its current round is cloned
  (a stale or half-made clone is replaced by the clone task);
* a clone whose source is gone (deleted, or in another knowledge base now) is deleted, in
  batches of ``DELETE_BATCH``, through the delete chain;
* a source knowledge still processing (or failed, cancelled, a draft) is skipped: counted in
  ``skipped``; its clone, if an earlier job made one, stays until a re-clone finds the source
  completed again. Knowledges uploaded to the target itself are never touched.

An FAQ knowledge base has one knowledge holding its entries, so it is cloned by the
difference of its entries instead (workers.clone.faq_clone), by one kb:clone_faq task; the
target's FAQ knowledge is made here when missing.

The plan is stored on the job, so a retried plan queues the same items; each item ends
once (CloneJobRepository.end_item) and the last one ends the job."""

from __future__ import annotations

from core.payloads import (
    KbCloneDeletePayload,
    KbCloneFaqPayload,
    KbCloneKnowledgePayload,
    KbClonePlanPayload,
)
from core.statuses import JobStatus, KnowledgeBaseType, ParseStatus
from storage.db.models import KbCloneJob
from storage.db.repositories.clone_jobs import CloneJobRepository, ClonePlan
from storage.db.repositories.maintenance_jobs import MaintenanceJobRepository
from storage.events.base import job_changed_event
from workers import task_specs
from workers.clone.faq_clone import faq_plan
from workers.clone.parts import CloneParts

DELETE_BATCH = 10


def plan_clone(ctx: CloneParts, payload: KbClonePlanPayload) -> None:
    jobs = CloneJobRepository(ctx.db)
    job = jobs.get(payload.job_id, None)
    if job is None or job.status not in (JobStatus.PENDING, JobStatus.PROCESSING):
        return
    # Retried by the queue or requeued by housekeeping, a plan uses up the one budget.
    MaintenanceJobRepository(ctx.db, KbCloneJob).attempt_started(job.id)
    if job.status == JobStatus.PENDING:
        plan, skipped = _planned(ctx, jobs, job)
        started = jobs.start(job.id, plan, skipped)
        if started is not None:
            ctx.publisher.publish(job_changed_event(job.id))
            job = started
        else:  # a concurrent try planned it first
            job = jobs.get(job.id, None)
    if job is None or job.status != JobStatus.PROCESSING:
        return
    enqueue_items(ctx, job)


def _planned(ctx: CloneParts, jobs: CloneJobRepository, job: KbCloneJob) -> tuple[ClonePlan, int]:
    source = ctx.knowledge_bases.get(None, job.source_knowledge_base_id)
    target = ctx.knowledge_bases.get(None, job.target_knowledge_base_id)
    if source is None or target is None:
        gone = "source" if source is None else "target"
        raise LookupError(f"the {gone} knowledge base of clone job {job.id} is gone")
    if source.type != KnowledgeBaseType.FAQ:
        return difference(jobs, job)
    ctx.faq_entries.ensure_faq_knowledge(target.tenant_id, target.id)
    return ClonePlan([], [], faq_plan(ctx, job)), 0


def difference(jobs: CloneJobRepository, job: KbCloneJob) -> tuple[ClonePlan, int]:
    """What to clone and delete; how many source knowledges are skipped (not completed)."""
    sources = jobs.source_knowledges(job.source_knowledge_base_id)
    clones = {row.clone_source_id: row for row in jobs.clones_in(job.target_knowledge_base_id)}
    completed = [row for row in sources if row.parse_status == ParseStatus.COMPLETED]
    to_clone = [
        row.id
        for row in completed
        if (clone := clones.get(row.id)) is None
        or clone.parse_status != ParseStatus.COMPLETED
        or clone.clone_source_attempt != row.attempt
    ]
    present = {row.id for row in sources}
    gone = sorted(
        clone.id
        for source_id, clone in clones.items()
        if source_id not in present and clone.parse_status != ParseStatus.DELETING
    )
    batches = [gone[i : i + DELETE_BATCH] for i in range(0, len(gone), DELETE_BATCH)]
    return ClonePlan(to_clone, batches), len(sources) - len(completed)


def enqueue_items(ctx: CloneParts, job: KbCloneJob) -> None:
    """Every item of the plan (an item queued or ended already is a no-op when it runs)."""
    plan = ClonePlan.of(job)
    if plan.faq is not None:
        ctx.queue.enqueue(task_specs.kb_clone_faq(ctx.settings, KbCloneFaqPayload(job.id)))
    for index, batch in enumerate(plan.delete):
        payload = KbCloneDeletePayload(job.id, index, list(batch))
        ctx.queue.enqueue(task_specs.kb_clone_delete(ctx.settings, payload))
    for source_id in plan.clone:
        ctx.queue.enqueue(
            task_specs.kb_clone_knowledge(ctx.settings, KbCloneKnowledgePayload(job.id, source_id))
        )


def plan_failed(ctx: CloneParts, payload: KbClonePlanPayload, error: str) -> None:
    """The plan's last try failed: the job fails with the reason."""
    if CloneJobRepository(ctx.db).fail(payload.job_id, f"planning the clone failed: {error}"):
        ctx.publisher.publish(job_changed_event(payload.job_id))
