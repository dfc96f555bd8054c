"""kb:clone_knowledge: one source knowledge cloned into the job's target knowledge base.

The clone is written as a draft (not searchable: its knowledge is disabled; housekeeping and
reparse leave drafts alone) and becomes completed, with the source's enabled state, only
once its files, chunks and index rows are all written. A try that finds a clone of the
source already there keeps it when it is completed at the source's round (an earlier try
got that far), else deletes it through the delete chain (a half-made clone of a killed try,
or a stale one of an older round) and starts over: a knowledge base never holds two clones
of one source (a unique constraint), nor chunks or index rows a clone does not own.

A try whose worker looked dead was superseded when housekeeping queued the job again (its
``recoveries`` moved on): the next try deletes its half-made clone and starts over, so this
one, if it was only frozen, checks before each write (the draft, its files, each chunk
batch, the completion, the item's end) and stops at the first check after that, writing at
most the step it was in."""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.payloads import KbCloneKnowledgePayload
from core.statuses import EnableStatus, JobStatus, ParseStatus
from storage.db.models import KbCloneJob, Knowledge, KnowledgeBase, utcnow
from storage.db.repositories.clone_jobs import CloneJobRepository, ItemEnd
from storage.db.repositories.resources import KNOWLEDGE_FILES
from storage.files.base import FileNotFoundInStorage
from storage.files.resource_catalog import CatalogError
from workers.clone.chunk_copy import copy_chunks
from workers.clone.file_copy import FileCopier
from workers.clone.parts import CloneParts
from workers.clone.progress import item_ended
from workers.clone.removal import delete_knowledges
from workers.clone.tag_map import TagMapper
from workers.lifecycle.deletion import delete_marked

log = logging.getLogger(__name__)

# The source's fields a clone carries over as they are.
_CARRIED = (
    "type",
    "title",
    "description",
    "source",
    "file_name",
    "file_type",
    "file_size",
    "file_hash",
    "content",
    "summary_status",
    "summary",
    "summary_error",
    "meta",
    "metadata_version",
    "channel",
    "process_overrides",
    "enable_multimodel",
)


class SourceChanged(Exception):
    """The source knowledge was deleted or left completed while it was being cloned."""


class Superseded(Exception):
    """Housekeeping queued the job again since this try began: another try owns the item."""


def clone_knowledge(ctx: CloneParts, payload: KbCloneKnowledgePayload) -> None:
    job = CloneJobRepository(ctx.db).get(payload.job_id, None)
    if job is None or job.status != JobStatus.PROCESSING:
        return
    try:
        _clone(ctx, payload, job, _fence(ctx, job))
    except Superseded:
        log.warning("clone job %s: this try was superseded; it stops", job.id)


def _fence(ctx: CloneParts, job: KbCloneJob) -> Callable[[], None]:
    """Raises Superseded once the job ended or was queued again since ``job`` was read."""

    def check() -> None:
        now = CloneJobRepository(ctx.db).get(job.id, None)
        if now is None or now.status != JobStatus.PROCESSING or now.recoveries != job.recoveries:
            raise Superseded(job.id)

    return check


def _clone(
    ctx: CloneParts, payload: KbCloneKnowledgePayload, job: KbCloneJob, fence: Callable[[], None]
) -> None:
    item = _item(payload)
    source = ctx.knowledges.get(payload.source_knowledge_id, None)
    target_kb = ctx.knowledge_bases.get(None, job.target_knowledge_base_id)
    if target_kb is None:
        raise SourceChanged(f"the target knowledge base {job.target_knowledge_base_id} is gone")
    if source is None or source.parse_status != ParseStatus.COMPLETED:
        reason = "was deleted" if source is None else f"is {source.parse_status} now"
        item_ended(ctx, job.id, ItemEnd(item, error=f"{_named(payload, source)} {reason}"))
        return
    existing = CloneJobRepository(ctx.db).clone_of(target_kb.id, source.id)
    if existing is not None:
        current = existing.parse_status == ParseStatus.COMPLETED
        if current and existing.clone_source_attempt == source.attempt:
            item_ended(ctx, job.id, ItemEnd(item))
            return
        fence()
        delete_knowledges(ctx, [existing.id])
    fence()
    clone = _draft(ctx, source, target_kb)
    try:
        # Any other failure leaves the draft: the next try deletes it, and the dead letter
        # after the last.
        _fill(ctx, source, clone, target_kb, fence)
    except (FileNotFoundInStorage, CatalogError) as exc:
        # A file of the source is gone: every try would fail alike, so none is made.
        delete_knowledges(ctx, [clone.id])
        item_ended(ctx, job.id, ItemEnd(item, error=f"{_named(payload, source)}: {exc}"))
        return
    except (SourceChanged, Superseded):
        _remove_if_deleted(ctx, clone)
        raise
    fence()
    item_ended(ctx, job.id, ItemEnd(item))


def clone_failed(ctx: CloneParts, payload: KbCloneKnowledgePayload, error: str) -> None:
    """The last try failed: its half-made clone goes, and the item counts as failed, named."""
    job = CloneJobRepository(ctx.db).get(payload.job_id, None)
    if job is None:
        return
    left = CloneJobRepository(ctx.db).clone_of(
        job.target_knowledge_base_id, payload.source_knowledge_id
    )
    if left is not None and left.parse_status != ParseStatus.COMPLETED:
        delete_knowledges(ctx, [left.id])
    source = ctx.knowledges.get(payload.source_knowledge_id, None)
    end = ItemEnd(_item(payload), error=f"{_named(payload, source)}: {error}")
    item_ended(ctx, payload.job_id, end)


def _remove_if_deleted(ctx: CloneParts, clone: Knowledge) -> None:
    """The draft was deleted while this try wrote it (by the try that superseded it): what
    this try wrote after the delete (a batch's index rows, say) is removed too, or it would
    outlive its knowledge. A draft still there is the next try's to delete."""
    if ctx.knowledges.get(clone.id, None) is None:
        delete_marked(ctx, [clone])


def _draft(ctx: CloneParts, source: Knowledge, target_kb: KnowledgeBase) -> Knowledge:
    tag_ids = _mapped_tags(ctx, source, target_kb)
    return ctx.knowledges.create(
        tag_ids=tag_ids,
        tenant_id=target_kb.tenant_id,
        knowledge_base_id=target_kb.id,
        parse_status=ParseStatus.DRAFT,
        enable_status=EnableStatus.DISABLED,
        attempt=1,
        clone_source_id=source.id,
        clone_source_attempt=source.attempt,
        **{name: getattr(source, name) for name in _CARRIED},
    )


def _fill(
    ctx: CloneParts,
    source: Knowledge,
    clone: Knowledge,
    target_kb: KnowledgeBase,
    fence: Callable[[], None],
) -> None:
    files = FileCopier(ctx, source, clone)
    fence()
    files.copy_images()
    fence()
    file_path = files.copy_original()
    copy_chunks(ctx, source, clone, target_kb, files, fence)
    fence()
    storage_size = sum(r.size for r in ctx.catalog.owned_by(KNOWLEDGE_FILES, [clone.id]))
    done = ctx.knowledges.transition(
        clone.id,
        from_statuses=(ParseStatus.DRAFT,),
        to_status=ParseStatus.COMPLETED,
        enable_status=source.enable_status,
        file_path=file_path,
        content=files.rewrite(source.content) if source.content else source.content,
        storage_size=storage_size,
        processed_at=utcnow(),
    )
    if not done:
        raise SourceChanged(f"the clone {clone.id} was changed while it was written")


def _mapped_tags(ctx: CloneParts, source: Knowledge, target_kb: KnowledgeBase) -> list[str]:
    """The target's tags of the source's tag names, created where missing."""
    tags = TagMapper(ctx, target_kb)
    mapped = (
        tags.target_of(tag_id)
        for tag_id in ctx.tags.tags_of([source.id], tenant_id=None)[source.id]
    )
    return [tag_id for tag_id in mapped if tag_id is not None]


def _item(payload: KbCloneKnowledgePayload) -> str:
    return f"clone:{payload.source_knowledge_id}"


def _named(payload: KbCloneKnowledgePayload, source: Knowledge | None) -> str:
    title = source.title or source.file_name if source is not None else ""
    return (
        f"knowledge {title!r} ({payload.source_knowledge_id})"
        if title
        else (f"knowledge {payload.source_knowledge_id}")
    )
