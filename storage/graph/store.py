"""The knowledge graph's store (spec: TypeChunkExtract writes into the graph engine): what
graph extraction found in each chunk, merged per knowledge base, and the reads the
GraphService and Search's graph expansion need.

Entities are merged per knowledge base by normalised name and type; each keeps the chunks
that mention it (its mentions). Relations join two entities of one knowledge base with a
relation type and keep the chunks they were found in (their sources). Everything a round
wrote is tagged with its knowledge and attempt, so a reparse, cancel or delete removes
exactly that, and an entity or relation left with no mention or source goes with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity as the extraction model named it in one chunk."""

    name: str
    type: str
    description: str = ""


@dataclass(frozen=True)
class ExtractedRelation:
    """A relation between two entities of the same chunk's extraction, by their names."""

    source: str
    target: str
    relation: str
    description: str = ""
    weight: float = 1.0


@dataclass(frozen=True)
class ChunkExtraction:
    """What one chunk's extraction found."""

    chunk_id: str
    entities: Sequence[ExtractedEntity] = ()
    relations: Sequence[ExtractedRelation] = ()


@dataclass(frozen=True)
class Entity:
    id: str
    knowledge_base_id: str
    name: str
    type: str
    description: str
    # Chunks that mention it, and the knowledges they belong to.
    chunk_count: int
    knowledge_count: int


@dataclass(frozen=True)
class Relation:
    id: str
    knowledge_base_id: str
    source_id: str
    target_id: str
    relation: str
    description: str
    # Summed over its sources.
    weight: float
    source_count: int


@dataclass(frozen=True)
class RelationSource:
    """A chunk a relation was found in."""

    chunk_id: str
    knowledge_id: str
    description: str


@dataclass(frozen=True)
class Neighbourhood:
    """An entity and what lies within ``depth`` relations of it."""

    center: Entity
    entities: Sequence[Entity]
    relations: Sequence[Relation]
    # True when a limit cut the walk short.
    truncated: bool = False


@dataclass(frozen=True)
class RelatedChunk:
    """A chunk reached from search hits through the graph: it mentions an entity that is
    ``hops`` relations away from one the hits mention (0: the same entity)."""

    chunk_id: str
    knowledge_id: str
    hops: int
    via_entity_ids: Sequence[str] = field(default_factory=tuple)


class GraphStore(Protocol):
    # ── writes (graph extraction, cleanup) ───────────────────────────────────────────────

    def write_chunk(
        self,
        tenant_id: str,
        knowledge_base_id: str,
        knowledge_id: str,
        attempt: int,
        extraction: ChunkExtraction,
        *,
        chunk_revision: int | None = None,
    ) -> bool:
        """Merge one chunk's entities and relations into the knowledge base's graph,
        replacing what this chunk wrote before (a retried task), in one transaction that
        holds the knowledge row: nothing is written and False is returned when the
        knowledge is no longer finalizing at ``attempt`` (a newer round began). With
        ``chunk_revision`` (a re-extraction after a chunk edit) the knowledge must instead
        be completed at ``attempt`` and the chunk still at that content_revision. Names are
        merged by storage.graph.names.normalize_name; a relation is kept only when both of
        its ends are among the chunk's entities (by normalised name)."""
        ...

    def remove_rounds(self, knowledge_id: str, attempt: int, *, and_older: bool = False) -> int:
        """Remove what round ``attempt`` (with ``and_older``: every round up to it) wrote;
        entities and relations left with no mention or source go too. Returns the number
        of mentions and sources removed."""
        ...

    def remove_chunks(
        self, knowledge_id: str, chunk_ids: Sequence[str], *, content_revision: int | None = None
    ) -> int:
        """Remove what the knowledge's chunks ``chunk_ids`` wrote, whatever the round (their
        content was edited), as ``remove_rounds`` does; the number removed. With
        ``content_revision``, only of the chunks still at that revision: a chunk edited
        again meanwhile is left to that edit (whose re-extraction may have written)."""
        ...

    def remove_knowledges(self, knowledge_ids: Sequence[str]) -> int:
        """Remove everything the knowledges wrote (a delete), as ``remove_rounds`` does."""
        ...

    def move_knowledge(self, knowledge_id: str, tenant_id: str, target_kb_id: str) -> int:
        """Re-point what the knowledge wrote at the target knowledge base's entities and
        relations (created when missing), pruning what its old ones are left without, in
        one transaction (a knowledge's move); idempotent. Returns its entities' number."""
        ...

    # ── reads (GraphService, Search's graph expansion) ──────────────────────────────────

    def find_entities(
        self,
        knowledge_base_ids: Sequence[str],
        *,
        name: str = "",
        type: str = "",
        limit: int,
        offset: int = 0,
    ) -> list[Entity]:
        """Entities of the knowledge bases whose normalised name contains ``name``
        (normalised the same way) and whose type is ``type`` (either may be empty), most
        mentioned first."""
        ...

    def count_entities(
        self, knowledge_base_ids: Sequence[str], *, name: str = "", type: str = ""
    ) -> int:
        """How many entities ``find_entities`` with the same filters pages through."""
        ...

    def get_entity(self, knowledge_base_ids: Sequence[str], entity_id: str) -> Entity | None: ...

    def entity_knowledge_base(self, entity_id: str) -> str | None:
        """The knowledge base an entity belongs to (what the caller's access is checked on)."""
        ...

    def relation_knowledge_base(self, relation_id: str) -> str | None:
        """The knowledge base a relation belongs to."""
        ...

    def neighbourhood(
        self, knowledge_base_ids: Sequence[str], entity_id: str, *, depth: int, limit: int
    ) -> Neighbourhood | None:
        """The entity and every entity and relation within ``depth`` relations of it (either
        direction), at most ``limit`` entities besides it (those behind the heaviest
        relations first); None when the entity is not there."""
        ...

    def get_relation(
        self, knowledge_base_ids: Sequence[str], relation_id: str
    ) -> Relation | None: ...

    def relation_sources(
        self, knowledge_base_ids: Sequence[str], relation_id: str
    ) -> list[RelationSource] | None:
        """The chunks behind a relation; None when the relation is not there."""
        ...

    def related_chunks(
        self,
        knowledge_base_ids: Sequence[str],
        chunk_ids: Sequence[str],
        *,
        hops: int,
        limit: int,
    ) -> list[RelatedChunk]:
        """Chunks other than ``chunk_ids`` that mention the entities those chunks mention, or
        entities up to ``hops`` relations from them; nearest first, at most ``limit``."""
        ...

    def entity_counts(self, knowledge_base_id: str) -> Mapping[str, int]:
        """{"entities": n, "relations": m} of a knowledge base (its statistics)."""
        ...
