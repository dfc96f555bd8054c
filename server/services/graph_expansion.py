"""Search's expansion of its hits through the knowledge graph (SearchRequest.graph_expansion):
the entities the hits' chunks mention, then the chunks that mention those, or entities up
to ``hops`` relations from them (GraphStore.related_chunks), added after the hits.

Only what the search itself could have found is added: enabled chunks of enabled
knowledges of the knowledge bases searched (and of the request's knowledges, when it names
some), each chunk once, never one of the hits. A child chunk (an image's OCR text, a child
of parent/child chunking) stands for the chunk it belongs to, as a hit does.

Score (documented in search.proto): the lowest hit score (0 when negative) x n/(n+1) x
0.5^hops, n = the reached entities the chunk mentions: below every hit, and for fewer hops
always above more hops (n/(n+1) is in [1/2, 1)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sluice.v1 import search_pb2

from core.errors import InvalidArgument
from core.statuses import EnableStatus, ParseStatus
from server.services.identity import Identity
from server.services.parts import SearchParts
from storage.db.models import Chunk
from storage.graph.store import Entity, RelatedChunk

DEFAULT_EXTRA_RESULTS = 5
MAX_EXTRA_RESULTS = 20
MAX_HOPS = 2
# Related chunks read per result wanted: some are filtered out (disabled, outside the
# request's knowledges, the same chunk as a hit or as another related one).
_OVERSAMPLING = 4


@dataclass(frozen=True)
class Expansion:
    hops: int
    max_results: int


@dataclass(frozen=True)
class GraphVia:
    """How an added result was reached: ``hops`` relations from the hits' entities, to
    ``entities`` that it mentions."""

    hops: int
    entities: tuple[Entity, ...]


@dataclass(frozen=True)
class Related:
    """A chunk to add after the hits, with its score."""

    chunk: Chunk
    score: float
    via: GraphVia


def requested_expansion(request: search_pb2.SearchRequest) -> Expansion | None:
    """The request's expansion, checked; None when it asks for none."""
    if not request.HasField("graph_expansion"):
        return None
    asked = request.graph_expansion
    violations = []
    if not 0 <= asked.hops <= MAX_HOPS:
        violations.append(("graph_expansion.hops", f"must be between 0 and {MAX_HOPS}"))
    if not 0 <= asked.max_results <= MAX_EXTRA_RESULTS:
        violations.append(
            (
                "graph_expansion.max_results",
                f"must be between 1 and {MAX_EXTRA_RESULTS} (0 = {DEFAULT_EXTRA_RESULTS})",
            )
        )
    if violations:
        raise InvalidArgument(violations)
    return Expansion(asked.hops, asked.max_results or DEFAULT_EXTRA_RESULTS)


def related_to_hits(
    ctx: SearchParts,
    identity: Identity,
    expansion: Expansion,
    *,
    knowledge_base_ids: Sequence[str],
    knowledge_ids: Sequence[str],
    hit_chunk_ids: Sequence[str],
    lowest_hit_score: float,
    stands_for: Callable[[Sequence[Chunk]], dict[str, Chunk]],
) -> list[Related]:
    """The chunks to add after hits whose chunks (and matched children) are
    ``hit_chunk_ids``; ``stands_for`` maps a chunk's id to the chunk it is a result as."""
    if not hit_chunk_ids:
        return []
    related = ctx.graph.related_chunks(
        knowledge_base_ids,
        hit_chunk_ids,
        hops=expansion.hops,
        limit=expansion.max_results * _OVERSAMPLING,
    )
    chunks = {
        c.id: c
        for c in ctx.chunks.get_many([r.chunk_id for r in related], tenant_id=identity.scope)
    }
    searchable = _searchable_knowledges(
        ctx, identity, {c.knowledge_id for c in chunks.values()}, knowledge_base_ids, knowledge_ids
    )
    results_of = stands_for(list(chunks.values()))
    taken = set(hit_chunk_ids)
    entities: dict[str, Entity | None] = {}
    added: list[Related] = []
    base = max(lowest_hit_score, 0.0)
    for found in related:
        chunk, result = chunks.get(found.chunk_id), results_of.get(found.chunk_id)
        if chunk is None or result is None or result.id in taken:
            continue
        if not (chunk.is_enabled and result.is_enabled and result.knowledge_id in searchable):
            continue
        taken.add(result.id)
        via = _entities(ctx, knowledge_base_ids, found, entities)
        n = len(found.via_entity_ids)
        added.append(
            Related(result, base * n / (n + 1) * 0.5**found.hops, GraphVia(found.hops, via))
        )
        if len(added) == expansion.max_results:
            break
    return added


def _searchable_knowledges(
    ctx: SearchParts,
    identity: Identity,
    knowledge_ids: set[str],
    knowledge_base_ids: Sequence[str],
    only: Sequence[str],
) -> set[str]:
    """Of ``knowledge_ids``, those Search may return: enabled, not being deleted, in the
    knowledge bases searched and, when the request names knowledges, among them."""
    rows = ctx.knowledges.get_many(sorted(knowledge_ids), tenant_id=identity.scope)
    return {
        row.id
        for row in rows
        if row.enable_status == EnableStatus.ENABLED
        and row.parse_status != ParseStatus.DELETING
        and row.knowledge_base_id in knowledge_base_ids
        and (not only or row.id in only)
    }


def _entities(
    ctx: SearchParts,
    knowledge_base_ids: Sequence[str],
    found: RelatedChunk,
    known: dict[str, Entity | None],
) -> tuple[Entity, ...]:
    for entity_id in found.via_entity_ids:
        if entity_id not in known:
            known[entity_id] = ctx.graph.get_entity(knowledge_base_ids, entity_id)
    return tuple(e for e in (known[i] for i in found.via_entity_ids) if e is not None)
