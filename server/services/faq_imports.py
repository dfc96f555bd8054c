"""Starting an FAQ import and reading its job: the knowledge base checked (the caller's,
of type FAQ), its import lock taken, the rows staged where the task will read them, the
task queued.

Rows are staged in the task's payload while they fit (at most INLINE_MAX_ROWS rows and
INLINE_MAX_BYTES of JSON); past either, all of them go to one file in the knowledge base's
storage, under the tenant's prefix, and the payload names it. The file is written before
the job row exists and removed if the job cannot start: nothing half-staged stays."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from core.errors import FailedPrecondition, NotFound
from core.faq_import_rows import INLINE_MAX_BYTES, INLINE_MAX_ROWS, ImportRow
from core.payloads import FaqImportPayload
from core.statuses import JobStatus, KnowledgeBaseType
from server.services.identity import Identity
from server.services.knowledge_bases import KnowledgeBaseService
from server.services.parts import FaqImportParts
from storage.db.models import FaqImportJob, KnowledgeBase
from storage.db.repositories.faq_imports import FaqImportRepository, ImportRunningError
from storage.files.base import StorageError, Upload
from storage.queue.base import QueueError
from workers import task_specs

log = logging.getLogger(__name__)

IMPORT_RUNNING = "FAQ_IMPORT_RUNNING"
NOT_FAQ = "KNOWLEDGE_BASE_NOT_FAQ"
ROWS_FILE_NAME = "faq-import-rows.jsonl"
FAQ_IMPORT = "sluice.v1.FAQImportProgress"
# An active job not written for longer than an attempt's time limit (and some) is dead.
LOST_AFTER = timedelta(seconds=task_specs.FAQ_IMPORT_TIMEOUT_S + 600)
LOST_TASK = "the import's task was lost (not queued, no progress within its time limit)"


@dataclass(frozen=True)
class ImportOptions:
    knowledge_base: KnowledgeBase
    # "append" or "replace".
    mode: str
    dry_run: bool


@dataclass(frozen=True)
class _Staged:
    rows: list[ImportRow] | None
    path: str
    total: int


class FaqImportService:
    def __init__(self, ctx: FaqImportParts, knowledge_bases: KnowledgeBaseService) -> None:
        self._ctx = ctx
        self._kbs = knowledge_bases
        self._jobs = FaqImportRepository(ctx.db)

    def options(self, identity: Identity, kb_id: str, mode: str, dry_run: bool) -> ImportOptions:
        """The caller's FAQ knowledge base; FAILED_PRECONDITION when it is not of type FAQ or
        an import of it is running (checked again when the job is inserted)."""
        kb = self._kbs.get_row(identity, kb_id)
        if kb.type != KnowledgeBaseType.FAQ:
            raise FailedPrecondition(
                NOT_FAQ,
                f"knowledge_bases/{kb.id}",
                f"knowledge base {kb.id} is of type {kb.type}: FAQ entries are imported "
                "only into a knowledge base of type faq",
            )
        self._refuse_if_running(kb.id)
        return ImportOptions(kb, mode, dry_run)

    def start(self, options: ImportOptions, rows: Iterable[ImportRow]) -> FaqImportJob:
        """Stage ``rows`` (read as they are staged: a reader's INVALID_ARGUMENT leaves
        nothing behind), insert the pending job and queue its task."""
        kb = options.knowledge_base
        job_id = str(uuid.uuid4())
        staged = self._stage(kb, job_id, rows)
        payload = FaqImportPayload(
            job_id=job_id,
            tenant_id=kb.tenant_id,
            knowledge_base_id=kb.id,
            dry_run=options.dry_run,
            rows=[vars(row) for row in staged.rows] if staged.rows is not None else None,
            rows_path=staged.path,
        )
        try:
            job = self._jobs.start(
                id=job_id,
                tenant_id=kb.tenant_id,
                knowledge_base_id=kb.id,
                mode=options.mode,
                dry_run=options.dry_run,
                total=staged.total,
                source_path=staged.path,
                # What housekeeping queues again if a worker dies running it.
                task_payload=payload.to_dict(),
            )
        except ImportRunningError as exc:
            self._discard(staged.path)
            raise _running(kb.id, exc.job_id) from None
        except BaseException:
            self._discard(staged.path)
            raise
        try:
            self._ctx.queue.enqueue(task_specs.faq_import(payload))
        except QueueError as exc:
            log.error("enqueue of FAQ import %s failed: %s", job.id, exc)
            self._jobs.finish(job.id, JobStatus.FAILED, f"could not enqueue the import: {exc}")
            self._discard(staged.path)
            raise
        return job

    def job(self, identity: Identity, job_id: str) -> FaqImportJob:
        """The job, if the caller's (NOT_FOUND otherwise, as for one that does not exist)."""
        job = self._jobs.get(identity.scope, job_id) if _is_uuid(job_id) else None
        if job is None:
            raise NotFound(FAQ_IMPORT, job_id)
        return job

    def read_job(self, job_id: str) -> FaqImportJob:
        """The job again, for a watcher that checked it was the caller's."""
        job = self._jobs.get(None, job_id)
        if job is None:
            raise NotFound(FAQ_IMPORT, job_id)
        return job

    @property
    def jobs(self) -> FaqImportRepository:
        return self._jobs

    def _refuse_if_running(self, kb_id: str) -> None:
        running = self._jobs.active_for(kb_id)
        if running is None:
            return
        if self._lost(running):
            log.error("FAQ import %s lost its task; failing it to free the lock", running.id)
            self._jobs.finish(running.id, JobStatus.FAILED, LOST_TASK)
            return
        raise _running(kb_id, running.id)

    def _lost(self, job: FaqImportJob) -> bool:
        """Neither queued nor written for longer than an attempt may run: its task is gone
        (Redis emptied, say), and it must not hold the knowledge base's lock for ever."""
        stale = self._ctx.clock.now() - job.updated_at > LOST_AFTER
        return stale and not self._ctx.queue.is_queued(task_specs.faq_import_group(job.id))

    def _stage(self, kb: KnowledgeBase, job_id: str, rows: Iterable[ImportRow]) -> _Staged:
        inline: list[ImportRow] = []
        size = 0
        upload: Upload | None = None
        total = 0
        try:
            for row in rows:
                total += 1
                line = row.to_json().encode("utf-8") + b"\n"
                if upload is None:
                    inline.append(row)
                    size += len(line)
                    if len(inline) <= INLINE_MAX_ROWS and size <= INLINE_MAX_BYTES:
                        continue
                    upload = self._begin_upload(kb, job_id)
                    upload.write(b"".join(staged.to_json().encode() + b"\n" for staged in inline))
                    inline = []
                else:
                    upload.write(line)
            if upload is None:
                return _Staged(inline, "", total)
            return _Staged(None, upload.commit().path, total)
        except BaseException:
            if upload is not None:
                upload.abort()
            raise

    def _begin_upload(self, kb: KnowledgeBase, job_id: str) -> Upload:
        files = self._ctx.files.for_backend(self._kbs.storage_backend_of(kb))
        # Keyed {tenant}/{job}/...: the tenant's namespace, one folder per job.
        return files.begin_upload(kb.tenant_id, job_id, ROWS_FILE_NAME)

    def _discard(self, path: str) -> None:
        if path:
            try:
                self._ctx.files.delete(path)
            except StorageError as exc:  # the job did not start: a leftover is only space
                log.warning("could not delete the staged FAQ rows %s: %s", path, exc)


def _running(kb_id: str, job_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        IMPORT_RUNNING,
        f"faq_imports/{job_id}",
        f"knowledge base {kb_id} has an import running (job {job_id}): one import at a "
        "time per knowledge base; watch it with WatchFAQImport",
    )


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True
