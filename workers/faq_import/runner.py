"""faq:import: an import job's rows planned and written a batch at a time.

Each batch is planned (workers.faq_import.planner), then its row outcomes, its counts and
the entry writes it needs are recorded in one transaction (guarded by the job's resume
point), then the writes are done and the row's entries recorded. A worker killed anywhere
in between leaves a job its retry resumes: a batch recorded but not written has its writes
done again first (each is idempotent: a create whose content hash is already an entry's
takes that entry), and batches are never counted twice. Progress is published after every
write of the job row."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import Any

from core.faq_import_rows import ImportRow
from core.payloads import FaqImportPayload
from core.statuses import JobStatus
from storage.db.models import FaqImportJob
from storage.db.repositories.faq_imports import BatchCounts, FaqImportRepository, RowOutcome
from storage.events.base import job_changed_event
from storage.files.base import FileNotFoundInStorage, StorageError
from workers.faq_import.parts import FaqImportTaskParts
from workers.faq_import.planner import (
    FAILED,
    Catalogue,
    EntryText,
    plan_row,
    without_own_negatives,
)
from workers.faq_import.source import import_rows
from workers.faq_import.store import EntryStore
from workers.faq_import.tags import TagNames

log = logging.getLogger(__name__)

# Rows planned, counted and written together: each batch is one outcome transaction, one
# embedding call and one index write (and flush), whose fixed costs dominated at 100 rows.
BATCH_ROWS = 500
DELETE_BATCH = 100
_NEW = "new:"


@dataclass
class _Batch:
    outcomes: list[RowOutcome] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # Planned content by entry key (an id, or "new:{row}"), and the rows each key serves.
    writes: dict[str, EntryText] = field(default_factory=dict)
    rows_of: dict[str, list[int]] = field(default_factory=dict)


def run_import(ctx: FaqImportTaskParts, payload: FaqImportPayload, store: EntryStore) -> None:
    jobs = FaqImportRepository(ctx.db)
    job = jobs.begin(payload.job_id)
    if job is None:
        return  # ended already (a duplicate delivery, or failed meanwhile)
    _publish(ctx, job.id)
    if job.pending_writes:
        _redo_writes(jobs, job, store)
        _publish(ctx, job.id)
    try:
        if not _import_rows(ctx, payload, job, jobs, store):
            return
    except FileNotFoundInStorage as exc:
        # Retrying cannot bring the stored rows back: the job fails now, saying so.
        log.error("FAQ import %s: its stored rows are gone: %s", job.id, exc)
        if jobs.finish(job.id, JobStatus.FAILED, f"the stored rows of the import are gone: {exc}"):
            _publish(ctx, job.id)
        return
    jobs.finish(job.id, JobStatus.COMPLETED)
    _publish(ctx, job.id)
    discard_rows_file(ctx, payload)


def _import_rows(
    ctx: FaqImportTaskParts,
    payload: FaqImportPayload,
    job: FaqImportJob,
    jobs: FaqImportRepository,
    store: EntryStore,
) -> bool:
    """Every row counted and written; False when another runner of the job counted a batch
    this one had planned, or housekeeping superseded this one (the other goes on; this one
    stops, writing nothing more)."""
    catalogue = _catalogue(store, job, jobs)
    tags = TagNames(ctx.tags, job.tenant_id, job.knowledge_base_id, create=not job.dry_run)
    rows = islice(import_rows(ctx.files, payload), job.processed, None)
    processed = job.processed
    for chunk in _batches(rows, BATCH_ROWS):
        batch = _plan(catalogue, chunk, store, tags)
        writes = None if job.dry_run else _pending(batch)
        counted = jobs.record_batch(
            job.id,
            processed_before=processed,
            recoveries=job.recoveries,
            rows=batch.outcomes,
            counts=BatchCounts(**batch.counts),
            writes=writes,
        )
        if not counted:
            log.warning(
                "FAQ import %s: its batch at row %d was counted elsewhere", job.id, processed
            )
            return False
        processed += len(chunk)
        _publish(ctx, job.id)
        if writes:
            if job.mode == "replace":
                _clear_old_conflicts(jobs, job, store, catalogue, writes)
            for key, entry_id in _write(jobs, job.id, store, writes).items():
                catalogue.rename(key, entry_id)
            _publish(ctx, job.id)
    if job.mode == "replace":
        _delete_old(jobs, job, store, catalogue)
    return True


def import_failed(ctx: FaqImportTaskParts, payload: FaqImportPayload, error: str) -> None:
    """The last attempt failed: the job says why, its lock is released."""
    jobs = FaqImportRepository(ctx.db)
    if jobs.finish(payload.job_id, JobStatus.FAILED, f"the import failed: {error}"):
        _publish(ctx, payload.job_id)
    discard_rows_file(ctx, payload)


def discard_rows_file(ctx: FaqImportTaskParts, payload: FaqImportPayload) -> None:
    """The job ended: its stored rows are of no more use (a leftover costs only space, so
    a storage outage does not fail the task for it)."""
    if not payload.rows_path:
        return
    try:
        ctx.files.delete(payload.rows_path)
    except StorageError as exc:
        log.warning("FAQ import %s: could not delete its stored rows: %s", payload.job_id, exc)


def _publish(ctx: FaqImportTaskParts, job_id: str) -> None:
    ctx.publisher.publish(job_changed_event(job_id))


def _batches(rows: Iterable[ImportRow], size: int) -> Iterator[list[ImportRow]]:
    iterator = iter(rows)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _catalogue(store: EntryStore, job: FaqImportJob, jobs: FaqImportRepository) -> Catalogue:
    """The entries as the import sees them; in a replace, those no row of this job wrote or
    matched yet are old (deleted at the end)."""
    catalogue = Catalogue()
    claimed = jobs.entry_ids(job.id) if job.mode == "replace" else set()
    for entry_id, entry in store.entries():
        catalogue.add(entry_id, entry, old=job.mode == "replace" and entry_id not in claimed)
    return catalogue


def _plan(catalogue: Catalogue, rows: list[ImportRow], store: EntryStore, tags: TagNames) -> _Batch:
    batch = _Batch()

    def check(entry: EntryText) -> str:
        return _described(store.violations(entry))

    for row in rows:
        entry = _entry_of(row, store, tags)
        objection = entry if isinstance(entry, str) else check(without_own_negatives(entry))
        if isinstance(entry, str) or objection:
            outcome, reason, key = FAILED, objection, None
        else:
            decision, written = plan_row(catalogue, row.row_number, entry, check)
            outcome, reason, key = decision.outcome, decision.reason, decision.key
            if written is not None and key is not None:
                batch.writes[key] = written
            if key is not None:
                batch.rows_of.setdefault(key, []).append(row.row_number)
        batch.counts[outcome] = batch.counts.get(outcome, 0) + 1
        batch.outcomes.append(
            RowOutcome(
                row_number=row.row_number,
                outcome=outcome,
                standard_question=row.standard_question,
                reason=reason,
                columns=row.columns,
                entry_id=key if key is not None and not key.startswith(_NEW) else None,
            )
        )
    return batch


def _described(violations: list[tuple[str, str]]) -> str:
    return "; ".join(f"{field}: {description}" for field, description in violations)


def _entry_of(row: ImportRow, store: EntryStore, tags: TagNames) -> EntryText | str:
    """The row's entry, cleaned, or why the row cannot be one."""
    if row.error:
        return row.error
    tag_id = row.tag_id
    if not tag_id and row.tag_name:
        tag_id = tags.id_of(row.tag_name)
    return store.cleaned(
        EntryText(
            standard_question=row.standard_question,
            similar_questions=tuple(row.similar_questions),
            negative_questions=tuple(row.negative_questions),
            answers=tuple(row.answers),
            answer_strategy=row.answer_strategy,
            tag_id=tag_id,
        )
    )


def _pending(batch: _Batch) -> list[dict[str, Any]]:
    return [
        {"key": key, "rows": batch.rows_of.get(key, []), "entry": asdict(entry)}
        for key, entry in batch.writes.items()
    ]


def _write(
    jobs: FaqImportRepository, job_id: str, store: EntryStore, writes: list[dict[str, Any]]
) -> dict[str, str]:
    """Do a batch's planned writes and record each row's entry; the ids of the entries it
    created, by key. A new entry's id is derived from the job and its row, so writing the
    batch again (after a crash) finds the entries it had created instead of adding more."""
    entries = [(write["key"], _entry(write["entry"])) for write in writes]
    ids = {key: new_entry_id(job_id, key) for key, _ in entries if key.startswith(_NEW)}
    creates = [(ids[key], entry) for key, entry in entries if key in ids]
    if creates:
        store.create(creates)
    updates = [(key, entry) for key, entry in entries if key not in ids]
    if updates:
        store.update(updates)
    jobs.writes_done(
        job_id,
        {row: ids.get(write["key"], write["key"]) for write in writes for row in write["rows"]},
    )
    return ids


def new_entry_id(job_id: str, key: str) -> str:
    return str(uuid.uuid5(uuid.UUID(job_id), key))


def _redo_writes(jobs: FaqImportRepository, job: FaqImportJob, store: EntryStore) -> None:
    log.info("FAQ import %s: doing the writes of its last counted batch again", job.id)
    writes = job.pending_writes or []
    if job.mode == "replace":
        _clear_old_conflicts(jobs, job, store, _catalogue(store, job, jobs), writes)
    # The killed attempt may have stored entries without their index rows: a create then
    # finds its entry present and an update finds nothing changed, so neither indexes it.
    store.reindex([_entry_id(job.id, write["key"]) for write in writes])
    _write(jobs, job.id, store, writes)


def _entry_id(job_id: str, key: str) -> str:
    return new_entry_id(job_id, key) if key.startswith(_NEW) else key


def _clear_old_conflicts(
    jobs: FaqImportRepository,
    job: FaqImportJob,
    store: EntryStore,
    catalogue: Catalogue,
    writes: list[dict[str, Any]],
) -> None:
    """Replace: an old entry that holds a question this batch writes is deleted just
    before the batch (the entries layer keeps questions unique to one entry), not at the
    end: only that question is missing from search meanwhile, for one write."""
    doomed = catalogue.old_holders([_entry(write["entry"]) for write in writes])
    if doomed:
        store.delete(sorted(doomed))
        jobs.add_deleted(job.id, len(doomed))
        catalogue.forget_old(doomed)


def _entry(raw: dict[str, Any]) -> EntryText:
    return EntryText(
        standard_question=raw["standard_question"],
        similar_questions=tuple(raw["similar_questions"]),
        negative_questions=tuple(raw["negative_questions"]),
        answers=tuple(raw["answers"]),
        answer_strategy=raw["answer_strategy"],
        tag_id=raw["tag_id"],
    )


def _delete_old(
    jobs: FaqImportRepository, job: FaqImportJob, store: EntryStore, catalogue: Catalogue
) -> None:
    """A replace's end: the entries no row wrote or matched go (in a dry run, are counted),
    after every imported one is written, so search never lacks what both have."""
    old = sorted(catalogue.old)
    if job.dry_run:
        jobs.add_deleted(job.id, len(old))
        return
    for start in range(0, len(old), DELETE_BATCH):
        ids = old[start : start + DELETE_BATCH]
        store.delete(ids)
        jobs.add_deleted(job.id, len(ids))
