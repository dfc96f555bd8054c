"""Starting an FAQ import in process, on PostgreSQL and SQLite: rows staged in the payload
up to 200 rows and 50 KB and in one stored file past either, nothing kept when the rows
cannot be read or the lock is taken, the lock's FAILED_PRECONDITION naming the running job,
a knowledge base of another type or tenant refused, another tenant's job NOT_FOUND."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.clock import ManualClock
from core.errors import FailedPrecondition, InvalidArgument, NotFound
from core.faq_import_rows import INLINE_MAX_ROWS, ImportRow
from core.statuses import JobStatus, KnowledgeBaseType
from server.services.faq_imports import LOST_AFTER, LOST_TASK, FaqImportService
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from workers.context import WorkerContext


@pytest.fixture
def ctx_env(database_url: str) -> dict[str, str]:
    return {"SLUICE_DATABASE_URL": database_url}


@pytest.fixture
def service(ctx: WorkerContext) -> FaqImportService:
    return FaqImportService(ctx, KnowledgeBaseService(ctx))


@pytest.fixture
def owner(ctx: WorkerContext) -> Identity:
    return Identity(ctx.tenants.create_tenant("owner").id, is_admin=False)


@pytest.fixture
def kb_id(ctx: WorkerContext, owner: Identity) -> str:
    return ctx.knowledge_bases.create(owner.tenant_id, "faq", type=KnowledgeBaseType.FAQ).id


def rows(count: int, answer: str = "An answer.") -> Iterator[ImportRow]:
    for n in range(count):
        yield ImportRow(row_number=n + 2, standard_question=f"Question {n}?", answers=[answer])


def stored(ctx: WorkerContext) -> list[Path]:
    return [p for p in ctx.settings.storage.storage_dir.rglob("*") if p.is_file()]


def test_up_to_200_rows_travel_in_the_payload(
    ctx: WorkerContext, service: FaqImportService, owner: Identity, kb_id: str
) -> None:
    job = service.start(service.options(owner, kb_id, "append", False), rows(INLINE_MAX_ROWS))
    assert (job.total, job.source_path) == (INLINE_MAX_ROWS, "")
    assert stored(ctx) == []


@pytest.mark.parametrize(
    "many", [list(rows(INLINE_MAX_ROWS + 1)), list(rows(20, "x" * 3000))], ids=["rows", "bytes"]
)
def test_more_rows_or_bytes_are_stored_first_under_the_tenant(
    ctx: WorkerContext,
    service: FaqImportService,
    owner: Identity,
    kb_id: str,
    many: list[ImportRow],
) -> None:
    job = service.start(service.options(owner, kb_id, "replace", True), iter(many))
    assert job.total == len(many) and job.source_path
    with ctx.files.open(job.source_path) as raw:
        lines = raw.read().decode().splitlines()
    assert [ImportRow.from_json(line) for line in lines] == many
    (path,) = stored(ctx)
    assert owner.tenant_id in path.parts and job.id in path.parts


def test_rows_that_cannot_be_read_leave_no_job_and_no_file(
    ctx: WorkerContext, service: FaqImportService, owner: Identity, kb_id: str
) -> None:
    def broken() -> Iterator[ImportRow]:
        yield from rows(INLINE_MAX_ROWS + 50)
        raise InvalidArgument.field("data", "row 253: not valid CSV")

    options = service.options(owner, kb_id, "append", False)
    with pytest.raises(InvalidArgument):
        service.start(options, broken())
    assert stored(ctx) == []
    assert service.jobs.active_for(kb_id) is None


def test_a_second_import_is_refused_naming_the_running_job(
    ctx: WorkerContext, service: FaqImportService, owner: Identity, kb_id: str
) -> None:
    first = service.start(service.options(owner, kb_id, "append", False), rows(3))
    with pytest.raises(FailedPrecondition) as refused:
        service.options(owner, kb_id, "append", False)
    assert refused.value.subject == f"faq_imports/{first.id}"
    # Past the early check (an import started meanwhile): the insert itself refuses, and
    # the rows it had stored are removed.
    options = service.options(
        owner,
        ctx.knowledge_bases.create(owner.tenant_id, "faq2", type=KnowledgeBaseType.FAQ).id,
        "append",
        False,
    )
    second = service.start(options, rows(1))
    with pytest.raises(FailedPrecondition) as raced:
        service.start(options, rows(INLINE_MAX_ROWS + 1))
    assert raced.value.subject == f"faq_imports/{second.id}"
    assert [p for p in stored(ctx) if p.suffix == ".jsonl"] == []


def test_what_an_import_cannot_reach(
    ctx: WorkerContext, service: FaqImportService, owner: Identity, kb_id: str
) -> None:
    documents = ctx.knowledge_bases.create(owner.tenant_id, "docs").id
    with pytest.raises(FailedPrecondition) as not_faq:
        service.options(owner, documents, "append", False)
    assert not_faq.value.kind == "KNOWLEDGE_BASE_NOT_FAQ"
    stranger = Identity(ctx.tenants.create_tenant("stranger").id, is_admin=False)
    with pytest.raises(NotFound):
        service.options(stranger, kb_id, "append", False)
    job = service.start(service.options(owner, kb_id, "append", False), rows(1))
    with pytest.raises(NotFound):
        service.job(stranger, job.id)
    with pytest.raises(NotFound):
        service.job(owner, "not-a-uuid")
    assert service.job(owner, job.id).id == job.id


def test_a_job_whose_task_was_lost_does_not_hold_the_lock_for_ever(
    ctx: WorkerContext, service: FaqImportService, owner: Identity, kb_id: str, clock: ManualClock
) -> None:
    # A job whose task never reached the queue (lost with Redis, say).
    lost_id = str(uuid.uuid4())
    service.jobs.start(id=lost_id, tenant_id=owner.tenant_id, knowledge_base_id=kb_id)
    with pytest.raises(FailedPrecondition):
        service.options(owner, kb_id, "append", False)  # young: it may still run
    clock.advance(LOST_AFTER.total_seconds() + 1)
    # Neither queued nor written for longer than an attempt may run: failed, lock free.
    assert service.options(owner, kb_id, "append", False).knowledge_base.id == kb_id
    lost = service.job(owner, lost_id)
    assert (lost.status, lost.error_message) == (JobStatus.FAILED, LOST_TASK)
