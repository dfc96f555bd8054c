"""kb:clone_faq: an FAQ knowledge base cloned by the difference of its entries' content
hashes (core.faq_text: the normalised questions and answers).

Planned once (``faq_plan``, stored on the job): target entries whose hash the source no
longer has are removed, with their index rows; source entries whose hash the target lacks
are added (their chunk written again under a new id, tags mapped by name, and their index
rows copied with the stored vectors: nothing is embedded again, whatever the index mode,
since a separate similar question's row ``{chunk}-{i}`` follows its chunk); matching entries
get only their state synced: enabled flag, tag and answer strategy. Removals run first, so
a question moved to another entry never meets its old holder's unique index.

A task runs the batches in that order, each an item of the job (``kb_clone_items``) ended
once; once its time budget (``kb_clone_faq_budget_s``) is spent it starts no other batch
but queues the next part, which goes on from the first batch not ended, so a large clone is
a chain of tasks each well inside the task's time limit. A retried task skips the ended
batches and redoes the one it was killed in, which is idempotent: an added entry already
written (found by its hash) keeps its id and gets its rows copied again, a removal deletes
the index rows before the chunks, a sync writes the index's enabled flags before the
chunks'.

Only one part works at a time (storage.db.repositories.faq_clone_turns): a part runs only
when it is the job's current part, hands the turn on before queueing the next part, and
stops before a batch once the turn is no longer its own; a part run out of turn (a retry
after the hand-on, the plan's requeue after a worker died) queues the current part
instead, a no-op while that one waits or runs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from core.faq_entry import AnswerStrategy, FaqEntryContent
from core.payloads import KbCloneFaqPayload
from core.statuses import JobStatus
from storage.db.models import Chunk, KbCloneJob, Knowledge, KnowledgeBase, new_id
from storage.db.repositories.clone_jobs import (
    CloneJobRepository,
    ClonePlan,
    FaqClonePlan,
    ItemEnd,
)
from storage.db.repositories.faq_clone_turns import FaqCloneTurns
from storage.db.repositories.faq_entries import EntryState, NewFaqEntry
from storage.index.milvus_index import RowOwner
from workers import task_specs
from workers.clone.parts import CloneParts
from workers.clone.progress import item_ended
from workers.clone.tag_map import TagMapper

BATCH = 100
# The job items' names: "{kind}:{batch index}".
_REMOVE, _ADD, _SYNC = "faq-remove", "faq-add", "faq-sync"
_T = TypeVar("_T")


def faq_plan(ctx: CloneParts, job: KbCloneJob) -> FaqClonePlan:
    source = ctx.faq_entries.content_hashes(job.source_knowledge_base_id)
    target = ctx.faq_entries.content_hashes(job.target_knowledge_base_id)
    return FaqClonePlan(
        remove=_batches([chunk_id for h, chunk_id in target.items() if h not in source]),
        add=_batches([chunk_id for h, chunk_id in source.items() if h not in target]),
        sync=_batches([(chunk_id, target[h]) for h, chunk_id in source.items() if h in target]),
    )


def clone_faq(ctx: CloneParts, payload: KbCloneFaqPayload) -> None:
    jobs = CloneJobRepository(ctx.db)
    job = jobs.get(payload.job_id, None)
    plan = ClonePlan.of(job).faq if job is not None else None
    if job is None or plan is None or job.status != JobStatus.PROCESSING:
        return
    source_kb = ctx.knowledge_bases.get(None, job.source_knowledge_base_id)
    target_kb = ctx.knowledge_bases.get(None, job.target_knowledge_base_id)
    if source_kb is None or target_kb is None:
        gone = "source" if source_kb is None else "target"
        _fail_open_items(ctx, job.id, plan, f"the {gone} knowledge base is gone")
        return
    turns, runner = FaqCloneTurns(ctx.db), new_id()
    if not turns.claim(job.id, payload.part, runner):
        _queue_current_part(ctx, turns, payload)
        return
    batches = _FaqBatches(ctx, source_kb, target_kb)
    ended = jobs.ended_items(job.id)
    deadline = ctx.clock.monotonic() + ctx.settings.queue.kb_clone_faq_budget_s
    ran = False
    for batch in _batches_of(plan):
        if batch.item in ended:
            continue
        if ran and ctx.clock.monotonic() >= deadline:
            # The turn first, then the queueing: a try killed in between is retried, finds
            # the turn passed and queues the next part itself.
            if turns.hand_on(job.id, payload.part, runner):
                following = replace(payload, part=payload.part + 1)
                ctx.queue.enqueue(task_specs.kb_clone_faq(ctx.settings, following))
            return
        if not turns.holds(job.id, payload.part, runner):
            return  # a retry of this part took the turn over: it goes on
        batches.run(batch)
        ran = True
        end = ItemEnd(
            batch.item, len(batch.values), removed=batch.kind == _REMOVE, synced=batch.kind == _SYNC
        )
        item_ended(ctx, job.id, end)


def _queue_current_part(ctx: CloneParts, turns: FaqCloneTurns, payload: KbCloneFaqPayload) -> None:
    """Not this part's turn: the part whose turn it is gets queued (a no-op while it waits
    or runs: each part has its own task id), in case the run that handed it on was killed
    before queueing it."""
    current = turns.current_part(payload.job_id)
    if current is not None and current > payload.part:
        ctx.queue.enqueue(task_specs.kb_clone_faq(ctx.settings, replace(payload, part=current)))


def clone_faq_failed(ctx: CloneParts, payload: KbCloneFaqPayload, error: str) -> None:
    """The last try failed: every item it did not end fails with the reason, unless the
    part had handed the turn on (the next part goes on with the items)."""
    job = CloneJobRepository(ctx.db).get(payload.job_id, None)
    plan = ClonePlan.of(job).faq if job is not None else None
    if job is not None and job.faq_part > payload.part:
        _queue_current_part(ctx, FaqCloneTurns(ctx.db), payload)
        return
    if plan is not None:
        _fail_open_items(ctx, payload.job_id, plan, error)


@dataclass(frozen=True)
class _Batch:
    """One batch of the plan: its item name ``{kind}:{index}`` and its chunk ids (a sync
    batch: (source, target) pairs)."""

    kind: str
    index: int
    values: Sequence[Any]

    @property
    def item(self) -> str:
        return f"{self.kind}:{self.index}"


def _batches_of(plan: FaqClonePlan) -> Iterator[_Batch]:
    """Every batch of the plan, in the order they run."""
    parts: tuple[tuple[str, Sequence[Sequence[Any]]], ...] = (
        (_REMOVE, plan.remove),
        (_ADD, plan.add),
        (_SYNC, plan.sync),
    )
    for kind, part in parts:
        for index, values in enumerate(part):
            yield _Batch(kind, index, values)


def _fail_open_items(ctx: CloneParts, job_id: str, plan: FaqClonePlan, error: str) -> None:
    ended = CloneJobRepository(ctx.db).ended_items(job_id)
    for batch in _batches_of(plan):
        if batch.item not in ended:
            count = len(batch.values)
            reason = f"FAQ entries {batch.item} ({count}): {error}"
            item_ended(ctx, job_id, ItemEnd(batch.item, count, error=reason))


class _FaqBatches:
    """One batch of each kind, between the two knowledge bases of a job."""

    def __init__(self, ctx: CloneParts, source_kb: KnowledgeBase, target_kb: KnowledgeBase):
        self._ctx = ctx
        self._source_kb = source_kb
        self._target_kb = target_kb
        self._model_key = target_kb.embedding_model_key
        self._tags = TagMapper(ctx, target_kb)
        self._knowledge: Knowledge | None = None

    def run(self, batch: _Batch) -> None:
        if batch.kind == _REMOVE:
            self.remove(batch.values)
        elif batch.kind == _ADD:
            self.add(batch.values)
        else:
            self.sync(batch.values)

    def remove(self, target_ids: Sequence[str]) -> None:
        self._ctx.index.delete_by_chunk_ids(self._model_key, target_ids)
        self._ctx.faq_entries.delete(self._target_kb.id, target_ids)

    def add(self, source_ids: Sequence[str]) -> None:
        """Entries deleted from the source since the plan are left out."""
        entries = self._ctx.faq_entries
        chunks = entries.get_many(self._source_kb.id, source_ids)
        present = entries.by_content_hash(self._target_kb.id, [c.content_hash for c in chunks])
        ids = {
            c.id: present[c.content_hash].id if c.content_hash in present else new_id()
            for c in chunks
        }
        knowledge = self._target_knowledge()
        new = [
            NewFaqEntry(self._content(chunk), chunk.is_enabled, ids[chunk.id])
            for chunk in chunks
            if chunk.content_hash not in present
        ]
        entries.insert(knowledge, new)
        knowledges = {chunk.knowledge_id: knowledge.id for chunk in chunks}
        owner = RowOwner(self._target_kb.tenant_id, self._target_kb.id, knowledges)
        self._ctx.index.copy_rows(self._model_key, ids, owner)

    def sync(self, pairs: Sequence[tuple[str, str]]) -> None:
        entries = self._ctx.faq_entries
        sources = _by_id(entries.get_many(self._source_kb.id, [s for s, _ in pairs]))
        targets = _by_id(entries.get_many(self._target_kb.id, [t for _, t in pairs]))
        states = [
            EntryState(
                chunk_id=target_id,
                enabled=source.is_enabled,
                tag_id=self._tags.target_of(source.tag_id),
                answer_strategy=str(source.meta.get("answer_strategy") or AnswerStrategy.ALL),
            )
            for source_id, target_id in pairs
            if (source := sources.get(source_id)) is not None and target_id in targets
        ]
        for enabled in (True, False):
            flipped = [
                s.chunk_id
                for s in states
                if s.enabled == enabled and targets[s.chunk_id].is_enabled != enabled
            ]
            self._ctx.index.set_enabled(self._model_key, flipped, enabled)
        entries.sync_state(self._target_kb.id, states)

    def _content(self, chunk: Chunk) -> FaqEntryContent:
        content = FaqEntryContent.from_metadata(chunk.meta)
        return replace(content, tag_id=self._tags.target_of(chunk.tag_id))

    def _target_knowledge(self) -> Knowledge:
        if self._knowledge is None:
            kb = self._target_kb
            self._knowledge = self._ctx.faq_entries.ensure_faq_knowledge(kb.tenant_id, kb.id)
        return self._knowledge


def _by_id(chunks: Sequence[Chunk]) -> dict[str, Chunk]:
    return {chunk.id: chunk for chunk in chunks}


def _batches(values: Sequence[_T]) -> list[list[_T]]:
    return [list(values[i : i + BATCH]) for i in range(0, len(values), BATCH)]
