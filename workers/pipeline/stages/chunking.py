"""Stage chunking: Markdown → text chunks written to the database, only while this round is
still the knowledge's current one; with parent/child chunking, parent chunks too (stored,
not embedded: a search that finds one of their children returns them). The same parse as
an earlier try's (or a requeued older round's) keeps that try's chunks, and embedding goes
on where it was."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from core.chunking_limits import parent_child_sizes
from core.effective_config import EffectiveConfig
from core.statuses import ChunkType, Stage
from storage.db.models import Knowledge
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.index_checkpoints import IndexCheckpointRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from workers.chunker import (
    ChildChunk,
    ChunkerConfig,
    TextChunk,
    split_markdown,
    split_parent_child,
)
from workers.chunker.html_tables import normalize_html_tables
from workers.pipeline.round.cleanup import RoundProducts
from workers.pipeline.round.errors import ChunkingFailed, Superseded
from workers.pipeline.round.resume import ChunkPlan, PlannedChunk, parse_fingerprint
from workers.pipeline.round.runner import Progress, Skip
from workers.pipeline.stages.work import DocumentWork

# Chunk ids are derived, not random, so a retried attempt rewrites the same rows and index
# entries instead of adding new ones.
CHUNK_NAMESPACE = uuid.UUID("5b0f6d1e-3c55-4f57-9a57-6c1b1b9d0a11")


def chunk_id(knowledge_id: str, attempt: int, chunk_type: str, index: int) -> str:
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{knowledge_id}:{attempt}:{chunk_type}:{index}"))


class ChunkingStage:
    name = Stage.CHUNKING

    def __init__(
        self,
        knowledges: KnowledgeRepository,
        chunks: ChunkRepository,
        index_checkpoints: IndexCheckpointRepository,
        products: RoundProducts,
    ) -> None:
        self._knowledges = knowledges
        self._chunks = chunks
        self._index_checkpoints = index_checkpoints
        self._products = products

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        # A URL download sets its file's name and type only now (a csv behind a link).
        work.knowledge = self._knowledges.get(work.knowledge.id, None) or work.knowledge
        return {
            "chunk_size": work.config.chunk_size,
            "chunk_overlap": work.config.chunk_overlap,
            "total_text_chars": len(work.markdown),
        }

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any]:
        knowledge, attempt, config = work.knowledge, work.attempt, work.config
        try:
            chunker_config, parents, pieces = _split(work.markdown, config)
        except ValueError as exc:
            # Splitting is a pure function of the text and the config: a refused config (one
            # stored before the API checked it) fails the same way on every attempt.
            raise ChunkingFailed(self.name, str(exc), permanent=True) from exc
        planned = [
            PlannedChunk(
                chunk_id(knowledge.id, attempt, ChunkType.TEXT, p.index),
                p.index,
                p.content,
                p.context_header,
            )
            for p in pieces
        ]
        progress({"chunks_planned": len(planned)})
        oversize = oversize_figures(pieces, chunker_config.chunk_size)
        if config.enable_parent_child:
            oversize = {"parent_chunks": len(parents), **oversize}
        title = str(knowledge.title or knowledge.file_name or "")
        fingerprint = parse_fingerprint(
            work.model_key, config.embedding, title, pieces, parents=parents
        )
        resumed = self._resume(work, fingerprint, planned)
        if resumed is not None:
            work.plan, kept_from = resumed
            return {
                "chunks_planned": len(planned),
                "chunks_written": 0,
                "chunks_kept": len(work.plan.chunks),
                "resumed_from_attempt": kept_from,
                **oversize,
            }
        # Whatever earlier tries and rounds left (rows an older round's task wrote after it
        # was told to stop, or this round's from another parse) would collide with this
        # parse's.
        self._products.remove(knowledge.id, attempt, work.model_key, and_older=True)
        rows = _chunk_rows(knowledge, attempt, pieces, planned, parents)
        if not self._chunks.insert_for_attempt(knowledge.id, attempt, rows):
            raise Superseded(knowledge.id)
        self._index_checkpoints.start(knowledge.id, attempt, fingerprint, len(planned))
        work.plan = ChunkPlan(planned, fingerprint)
        return {"chunks_planned": len(planned), "chunks_written": len(planned), **oversize}

    def _resume(
        self, work: DocumentWork, fingerprint: str, planned: list[PlannedChunk]
    ) -> tuple[ChunkPlan, int] | None:
        """The plan of an earlier try of the same parse, its chunks kept, and the round
        that wrote them; None to start over."""
        knowledge_id, attempt = work.knowledge.id, work.attempt
        point = self._index_checkpoints.resume(knowledge_id, attempt, fingerprint, len(planned))
        if point is None:
            return None
        kept = [replace(plan, id=i) for plan, i in zip(planned, point.chunk_ids, strict=True)]
        # Older rounds' other products (a round taken over keeps only its text chunks).
        self._products.remove(knowledge_id, attempt - 1, work.model_key, and_older=True)
        return ChunkPlan(kept, fingerprint, point.indexed_count), point.from_attempt


def oversize_figures(pieces: Sequence[TextChunk], chunk_size: int) -> dict[str, int]:
    """The chunking span's record of the chunks longer than ``chunk_size``: the chunker makes
    one only of a unit it never cuts (a table row with the header rows it repeats, or a
    fence whose opening and closing lines the size cannot hold), so a document whose chunks
    will be cut short by the embedding model can be found from its spans."""
    lengths = [len(p.content) for p in pieces if len(p.content) > chunk_size]
    return {"oversize_chunks": len(lengths), "oversize_max_chars": max(lengths, default=0)}


def _split(
    markdown: str, config: EffectiveConfig
) -> tuple[ChunkerConfig, list[TextChunk], Sequence[TextChunk]]:
    """The config the searched chunks were cut with, the parent chunks (none unless
    parent/child chunking is on) and the chunks to embed: with parent/child on, each
    parent's range cut again, without overlap between parents (each is a context of its
    own). ValueError for a config the chunker refuses."""
    chunker_config = ChunkerConfig(
        chunk_size=config.chunk_size,
        chunk_overlap=config.chunk_overlap,
        **({"separators": config.separators} if config.separators else {}),
    )
    text = normalize_html_tables(markdown)
    if not config.enable_parent_child:
        return chunker_config, [], split_markdown(text, chunker_config)
    parent_size, child_size = parent_child_sizes(
        config.chunk_size, config.parent_chunk_size, config.child_chunk_size
    )
    child_config = replace(chunker_config, chunk_size=child_size)
    parent_config = replace(chunker_config, chunk_size=parent_size, chunk_overlap=0)
    parents, children = split_parent_child(text, parent_config, child_config)
    return child_config, parents, children


def _chunk_rows(
    knowledge: Knowledge,
    attempt: int,
    pieces: Sequence[TextChunk],
    planned: Sequence[PlannedChunk],
    parents: Sequence[TextChunk],
) -> list[NewChunk]:
    """The rows of the round's chunks: the searched ones linked in order (and each to its
    parent), then the parents, linked in order too, stored for what a search returns but
    never embedded."""
    parent_ids = [chunk_id(knowledge.id, attempt, ChunkType.PARENT_TEXT, p.index) for p in parents]
    parent_rows = [
        NewChunk(
            id=parent_ids[i],
            tenant_id=knowledge.tenant_id,
            knowledge_base_id=knowledge.knowledge_base_id,
            knowledge_id=knowledge.id,
            attempt=attempt,
            chunk_index=parent.index,
            chunk_type=ChunkType.PARENT_TEXT,
            content=parent.content,
            context_header=parent.context_header,
            start_at=parent.start,
            end_at=parent.end,
            is_enabled=True,
            pre_chunk_id=parent_ids[i - 1] if i > 0 else None,
            next_chunk_id=parent_ids[i + 1] if i + 1 < len(parents) else None,
        )
        for i, parent in enumerate(parents)
    ]
    return [
        NewChunk(
            id=plan.id,
            tenant_id=knowledge.tenant_id,
            knowledge_base_id=knowledge.knowledge_base_id,
            knowledge_id=knowledge.id,
            attempt=attempt,
            chunk_index=plan.index,
            chunk_type=ChunkType.TEXT,
            content=plan.content,
            context_header=plan.context_header,
            start_at=piece.start,
            end_at=piece.end,
            is_enabled=True,
            pre_chunk_id=planned[i - 1].id if i > 0 else None,
            next_chunk_id=planned[i + 1].id if i + 1 < len(planned) else None,
            parent_chunk_id=(
                parent_ids[piece.parent_index] if isinstance(piece, ChildChunk) else None
            ),
        )
        for i, (piece, plan) in enumerate(zip(pieces, planned, strict=True))
    ] + parent_rows
