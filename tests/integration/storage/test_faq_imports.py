"""FaqImportRepository on real PostgreSQL and SQLite: the import lock (one pending or
processing job per knowledge base, enforced by the partial unique index even when starts
race), a batch counted once whichever attempt counts it, the rows' entries, the failed
rows in file order, and the job ended once."""

from __future__ import annotations

import uuid

import pytest

from core.statuses import JobStatus
from storage.db.engine import Database
from storage.db.repositories.faq_imports import (
    BatchCounts,
    FaqImportRepository,
    ImportRunningError,
    RowOutcome,
)
from tests.integration.storage.conftest import Scope, run_together


def start(jobs: FaqImportRepository, scope: Scope) -> str:
    return jobs.start(
        id=str(uuid.uuid4()), tenant_id=scope.tenant_id, knowledge_base_id=scope.knowledge_base_id
    ).id


def outcome(row: int, kind: str, entry_id: str | None = None) -> RowOutcome:
    return RowOutcome(row, kind, f"question {row}", f"reason {row}", {"col": str(row)}, entry_id)


def test_one_import_at_a_time_per_knowledge_base(database: Database, scope: Scope) -> None:
    jobs = FaqImportRepository(database)
    first = start(jobs, scope)
    with pytest.raises(ImportRunningError) as running:
        start(jobs, scope)
    assert running.value.job_id == first
    assert jobs.begin(first) is not None  # processing holds the lock too
    with pytest.raises(ImportRunningError):
        start(jobs, scope)
    assert jobs.finish(first, JobStatus.FAILED, "boom")
    second = start(jobs, scope)
    assert jobs.finish(second, JobStatus.COMPLETED)
    assert start(jobs, scope)


def test_racing_starts_leave_exactly_one_job(database: Database, scope: Scope) -> None:
    jobs = FaqImportRepository(database)

    def attempt(_: int) -> str:
        try:
            return start(jobs, scope)
        except ImportRunningError as exc:
            return f"refused:{exc.job_id}"

    results = run_together(6, attempt)
    started = [r for r in results if not r.startswith("refused:")]
    assert len(started) == 1
    assert all(r == f"refused:{started[0]}" for r in results if r not in started)


def test_a_batch_is_counted_once_and_its_writes_cleared_when_done(
    database: Database, scope: Scope
) -> None:
    jobs = FaqImportRepository(database)
    job_id = start(jobs, scope)
    jobs.begin(job_id)
    rows = [outcome(2, "succeeded"), outcome(3, "failed"), outcome(4, "skipped", "e-old")]
    writes = [{"key": "new:2", "rows": [2], "entry": {}}]
    counts = BatchCounts(succeeded=1, failed=1, skipped=1)
    assert jobs.record_batch(
        job_id, processed_before=0, recoveries=0, rows=rows, counts=counts, writes=writes
    )
    # A second attempt counting the same batch (its resume point passed it): refused.
    assert not jobs.record_batch(
        job_id, processed_before=0, recoveries=0, rows=rows, counts=counts, writes=None
    )
    job = jobs.get(scope.tenant_id, job_id)
    assert job is not None
    assert (job.processed, job.succeeded, job.failed, job.skipped) == (3, 1, 1, 1)
    assert job.pending_writes == writes
    # Until its writes are done, not even the next batch is counted.
    assert not jobs.record_batch(
        job_id, processed_before=3, recoveries=0, rows=[], counts=BatchCounts(), writes=None
    )
    jobs.writes_done(job_id, {2: "e-new"})
    job = jobs.get(None, job_id)
    assert job is not None and job.pending_writes is None
    assert jobs.entry_ids(job_id) == {"e-new", "e-old"}
    assert jobs.record_batch(
        job_id,
        processed_before=3,
        recoveries=0,
        rows=[outcome(5, "partial")],
        counts=BatchCounts(partial=1),
        writes=None,
    )
    assert [r.row_number for r in jobs.failed_rows(job_id, after_row=0, limit=10)] == [3, 5]
    assert [r.row_number for r in jobs.failed_rows(job_id, after_row=3, limit=10)] == [5]


def test_a_job_ends_once_and_is_only_its_tenants(database: Database, scope: Scope) -> None:
    jobs = FaqImportRepository(database)
    job_id = start(jobs, scope)
    assert jobs.get("another-tenant", job_id) is None
    assert jobs.finish(job_id, JobStatus.FAILED, "the import failed: killed")
    assert not jobs.finish(job_id, JobStatus.COMPLETED)
    assert jobs.begin(job_id) is None
    job = jobs.get(scope.tenant_id, job_id)
    assert job is not None
    assert (job.status, job.error_message) == (JobStatus.FAILED, "the import failed: killed")
    assert job.finished_at is not None
