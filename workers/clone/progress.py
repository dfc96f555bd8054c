"""A clone job's item ended: counted once, and its watchers told."""

from __future__ import annotations

from storage.db.repositories.clone_jobs import CloneJobRepository, ItemEnd
from storage.events.base import job_changed_event
from workers.clone.parts import CloneParts
from workers.profile_request import request_profile_refresh


def item_ended(ctx: CloneParts, job_id: str, end: ItemEnd) -> None:
    job = CloneJobRepository(ctx.db).end_item(job_id, end)
    if job is None:
        return  # counted before (a retry, a dead letter after a try ended it)
    ctx.publisher.publish(job_changed_event(job_id))
    if job.finished_at is not None:
        # The target's profile describes what it holds now.
        request_profile_refresh(ctx, job.target_knowledge_base_id)
