"""Ending one processing round without a trace: its chunks, their index rows and what graph
extraction wrote of it removed, its open spans closed. Everything here names the round
(attempt) it clears, so ending an old round never touches a newer one, and every step may
run twice (the API and a stopping worker both clean up after a cancel)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.statuses import ParseStatus, SpanStatus
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.index_checkpoints import IndexCheckpointRepository
from storage.events.base import ProgressEvent
from storage.graph.store import GraphStore
from storage.index.milvus_index import MilvusIndex
from workers.pipeline.round.parts import RoundProductParts, RoundSpanParts
from workers.pipeline.round.spans import publish_spans

CANCELLED = "CANCELLED"
SUPERSEDED = "SUPERSEDED"
INTERRUPTED = "INTERRUPTED_BY_SHUTDOWN"
INTERRUPTED_MESSAGE = (
    "interrupted by worker shutdown; the round goes back to the front of the queue "
    "without using up an attempt"
)
# How long a worker told to stop has to close its round's spans itself (it reaches a
# checkpoint within about a second) before the API closes them for it, and watchers stop
# waiting for it.
STOP_GRACE_S = 5.0


@dataclass(frozen=True)
class RoundProducts:
    """A round's chunks, their index rows, its index checkpoint and its graph rows (the
    entity mentions and relation sources of its chunks): what ending it removes."""

    index_checkpoints: IndexCheckpointRepository
    chunks: ChunkRepository
    index: MilvusIndex
    graph: GraphStore

    def remove(
        self,
        knowledge_id: str,
        attempt: int,
        model_key: str,
        *,
        and_older: bool = False,
        known_chunk_ids: Iterable[str] = (),
    ) -> None:
        """The index checkpoint first (no try may resume onto what is being removed), then
        index rows, then the chunk rows they were found by, so a failure in between leaves
        both for the next cleanup rather than orphaned index rows. ``known_chunk_ids`` are
        ids the caller wrote to the index itself, whose chunk rows may already be gone — or
        taken over by a newer round that resumed from them, whose index rows they are now.

        With ``and_older`` every index row of the knowledge that no newer round owns goes
        too, found in the index itself: a reparse removes the old rounds' products before
        it opens the new attempt (spec), so a batch the old round's task was indexing then
        lands after that removal, with its chunk rows gone; and a task that saw its stop
        before the new attempt opened still counted as current and kept what it wrote. The
        new round's own removal (chunking) finds those rows here, as it finds the graph rows
        an old round's extraction wrote after the reparse removed them.

        The graph rows go first: they name the chunks, never the other way round."""
        self.graph.remove_rounds(knowledge_id, attempt, and_older=and_older)
        self.index_checkpoints.delete(knowledge_id, attempt, and_older=and_older)
        chunk_ids = set(self.chunks.ids_of_attempt(knowledge_id, attempt, and_older=and_older))
        known = set(known_chunk_ids) - chunk_ids
        if and_older and model_key:
            known.update(self.index.chunk_ids_for_knowledge(model_key, knowledge_id))
        chunk_ids.update(known - self.chunks.owned_by_newer_rounds(knowledge_id, attempt, known))
        if chunk_ids and model_key:
            self.index.delete_by_chunk_ids(model_key, sorted(chunk_ids))
        self.chunks.delete_attempt(knowledge_id, attempt, and_older=and_older)


def remove_round_products(
    ctx: RoundProductParts,
    knowledge_id: str,
    attempt: int,
    model_key: str,
    *,
    and_older: bool = False,
    known_chunk_ids: Iterable[str] = (),
) -> None:
    """RoundProducts.remove for callers holding a context's parts (API, housekeeping)."""
    RoundProducts(ctx.index_checkpoints, ctx.chunks, ctx.index, ctx.graph).remove(
        knowledge_id, attempt, model_key, and_older=and_older, known_chunk_ids=known_chunk_ids
    )


def stop_reason(ctx: RoundSpanParts, knowledge_id: str, attempt: int) -> tuple[str, str] | None:
    """Why round ``attempt`` must stop, as a span error code and message; None when the
    knowledge is gone (its spans went with it)."""
    row = ctx.knowledges.get(knowledge_id, None)
    if row is None:
        return None
    if row.attempt != attempt:
        return SUPERSEDED, f"attempt {row.attempt} took over"
    if row.parse_status == ParseStatus.CANCELLED:
        return CANCELLED, "cancelled by the user"
    return SUPERSEDED, f"the knowledge is {row.parse_status}"


def close_round_spans(
    ctx: RoundSpanParts, knowledge_id: str, attempt: int, code: str, message: str
) -> int:
    """Close the round's pending and running spans as cancelled; returns how many. Each
    closed span is published, then the knowledge's status (watchers may end on it)."""
    closed = ctx.spans.close_open(knowledge_id, attempt, SpanStatus.CANCELLED, code, message)
    publish_spans(ctx.publisher, closed)
    if closed:
        row = ctx.knowledges.get(knowledge_id, None)
        status = row.parse_status if row is not None else ParseStatus.DELETING
        ctx.publisher.publish(
            ProgressEvent(knowledge_id, attempt, "state", {"parse_status": status})
        )
    return len(closed)
