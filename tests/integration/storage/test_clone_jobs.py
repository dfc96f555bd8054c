"""Clone jobs on PostgreSQL and SQLite: one open clone per target (its lock, held even when
calls race), a plan's items each counted once (retries, dead
letters after a try ended them, concurrent ends), the last end ends the job (failed, naming
what failed, when any item failed), and one clone per source knowledge in a knowledge base."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

from core.statuses import JobStatus
from storage.db.engine import Database
from storage.db.repositories.clone_jobs import (
    CloneJobRepository,
    ClonePlan,
    CloneRunningError,
    ItemEnd,
)
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from tests.integration.storage.conftest import Scope, run_together


def _job(database: Database, scope: Scope) -> tuple[CloneJobRepository, str]:
    jobs = CloneJobRepository(database)
    target = KnowledgeBaseRepository(database).create(scope.tenant_id, "target")
    return jobs, jobs.create(scope.tenant_id, scope.knowledge_base_id, target.id).id


def test_each_item_counts_once_and_the_last_ends_the_job(database: Database, scope: Scope) -> None:
    jobs, job_id = _job(database, scope)
    plan = ClonePlan(["a", "b"], [["x", "y", "z"]])
    started = jobs.start(job_id, plan, skipped=1)
    assert started is not None
    assert (started.status, started.total, started.skipped) == (JobStatus.PROCESSING, 5, 1)
    assert jobs.start(job_id, plan, skipped=1) is None  # planned once
    assert ClonePlan.of(started) == ClonePlan(["a", "b"], [["x", "y", "z"]])

    first = jobs.end_item(job_id, ItemEnd("clone:a"))
    assert first is not None and (first.done, first.added) == (1, 1)
    assert jobs.end_item(job_id, ItemEnd("clone:a")) is None  # a retry after it ended
    deleted = jobs.end_item(job_id, ItemEnd("delete:0", 3, removed=True))
    assert deleted is not None and (deleted.done, deleted.removed) == (4, 3)
    assert deleted.status == JobStatus.PROCESSING

    last = jobs.end_item(job_id, ItemEnd("clone:b", error="knowledge 'gauges' (b): disk full"))
    assert last is not None
    assert (last.status, last.done, last.failed, last.added) == (JobStatus.FAILED, 5, 1, 1)
    assert last.error_message == "1 item(s) failed: knowledge 'gauges' (b): disk full"
    assert last.finished_at is not None
    assert jobs.end_item(job_id, ItemEnd("clone:c")) is None  # the job is over


def test_concurrent_ends_of_one_item_count_it_once(database: Database, scope: Scope) -> None:
    jobs, job_id = _job(database, scope)
    jobs.start(job_id, ClonePlan(["a", "b"], []), skipped=0)
    ended = run_together(4, lambda _: jobs.end_item(job_id, ItemEnd("clone:a")))
    assert sum(job is not None for job in ended) == 1
    job = jobs.get(job_id, None)
    assert job is not None and (job.done, job.status) == (1, JobStatus.PROCESSING)


def test_an_empty_plan_completes_at_once_and_jobs_are_scoped_to_their_tenant(
    database: Database, scope: Scope
) -> None:
    jobs, job_id = _job(database, scope)
    started = jobs.start(job_id, ClonePlan([], []), skipped=2)
    assert started is not None and (started.status, started.total) == (JobStatus.COMPLETED, 0)
    assert jobs.get(job_id, scope.tenant_id) is not None
    assert jobs.get(job_id, "another-tenant") is None
    assert jobs.open_for_target(started.target_knowledge_base_id) is None


def test_failing_a_job_ends_it_with_the_reason(database: Database, scope: Scope) -> None:
    jobs, job_id = _job(database, scope)
    job = jobs.get(job_id, None)
    assert job is not None and jobs.open_for_target(job.target_knowledge_base_id) is not None
    failed = jobs.fail(job_id, "planning the clone failed: boom")
    assert failed is not None and failed.status == JobStatus.FAILED
    assert failed.error_message == "planning the clone failed: boom"
    assert jobs.fail(job_id, "again") is None


def test_a_knowledge_base_holds_one_clone_per_source(database: Database, scope: Scope) -> None:
    knowledges = KnowledgeRepository(database)
    fields = {"tenant_id": scope.tenant_id, "knowledge_base_id": scope.knowledge_base_id}
    first = knowledges.create(**fields, clone_source_id="src-1", clone_source_attempt=1)
    knowledges.create(**fields)  # uploaded to the target itself: no source
    knowledges.create(**fields)
    with pytest.raises(IntegrityError):
        knowledges.create(**fields, clone_source_id="src-1", clone_source_attempt=2)
    jobs = CloneJobRepository(database)
    found = jobs.clone_of(scope.knowledge_base_id, "src-1")
    assert found is not None and found.id == first.id
    assert [k.id for k in jobs.clones_in(scope.knowledge_base_id)] == [first.id]


def test_one_open_clone_at_a_time_per_target(database: Database, scope: Scope) -> None:
    jobs, first = _job(database, scope)
    job = jobs.get(first, None)
    assert job is not None
    target = job.target_knowledge_base_id
    with pytest.raises(CloneRunningError) as running:
        jobs.create(scope.tenant_id, scope.knowledge_base_id, target)
    assert running.value.job_id == first
    jobs.start(first, ClonePlan(["a"], []), skipped=0)  # processing holds the lock too
    with pytest.raises(CloneRunningError):
        jobs.create(scope.tenant_id, scope.knowledge_base_id, target)
    assert jobs.fail(first, "boom") is not None
    second = jobs.create(scope.tenant_id, scope.knowledge_base_id, target)
    assert second.status == JobStatus.PENDING


def test_racing_clones_into_one_target_leave_exactly_one_job(
    database: Database, scope: Scope
) -> None:
    jobs = CloneJobRepository(database)
    target = KnowledgeBaseRepository(database).create(scope.tenant_id, "raced").id

    def attempt(_: int) -> str:
        try:
            return jobs.create(scope.tenant_id, scope.knowledge_base_id, target).id
        except CloneRunningError as exc:
            return f"refused:{exc.job_id}"

    results = run_together(6, attempt)
    started = [r for r in results if not r.startswith("refused:")]
    assert len(started) == 1
    assert all(r == f"refused:{started[0]}" for r in results if r not in started)
