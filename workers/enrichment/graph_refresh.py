"""knowledge:graph_refresh — one text chunk's entities and relations read again after its
content was edited (server.services.chunk_graph), on a completed knowledge.

Not one of a round's subtasks: the round has ended, so nothing is counted (no
pending_subtasks_count, no subtask end) and no step span is written; its progress is its
log line. The chunk is read, the extraction model asked as the round's task asks it
(``graph_text.ask_extraction``), and the reading written with ``GraphStore.write_chunk``'s
chunk-revision guard: nothing is written once the chunk was edited again (the newer edit
queued its own refresh), reparsed, or the knowledge left completed at that attempt. A
model unavailable is tried again by the queue; after the last try, a refusal, no model or
malformed answers, the chunk keeps no graph rows (the edit removed them) and why is logged.
"""

from __future__ import annotations

import logging
from typing import Protocol

from core.effective_config import resolve
from core.payloads import GraphRefreshPayload
from core.statuses import ChunkType, ParseStatus
from storage.db.models import Chunk
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.graph.store import ChunkExtraction, GraphStore
from workers.enrichment.graph_extract import MALFORMED_ASKS
from workers.enrichment.graph_text import ask_extraction
from workers.models.errors import ModelError
from workers.models.registry import ModelRegistry
from workers.pipeline.chunks.indexing import knowledge_title
from workers.pipeline.document import queue_try_of
from workers.pipeline.round.checkpoint import row_is_current
from workers.pipeline.round.parts import CheckpointParts

log = logging.getLogger(__name__)


class GraphRefreshParts(CheckpointParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def models(self) -> ModelRegistry: ...
    @property
    def graph(self) -> GraphStore: ...


def refresh_chunk_graph(parts: GraphRefreshParts, payload: GraphRefreshPayload) -> bool:
    """Write the chunk's graph from its edited text; True when written. Raises ModelError
    for a failure the queue should retry (nothing written)."""
    knowledge = parts.knowledges.get(payload.knowledge_id, None)
    chunk = _chunk(parts.chunks, payload)
    if not row_is_current(knowledge, payload.attempt, (ParseStatus.COMPLETED,)) or chunk is None:
        _log_dropped(payload, "the chunk or its knowledge changed")
        return False
    kb = parts.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if kb is None:
        return False
    config = resolve(kb.config or {}, knowledge.process_overrides)
    if not config.graph_enabled:
        _log_dropped(payload, "graph extraction is off")
        return False
    try:
        model = parts.models.chat(config.extract_model)
        if model is None:
            _log_dropped(payload, "the configuration names no extraction model (extract.model)")
            return False
        asked = ask_extraction(
            model,
            knowledge_title(knowledge),
            chunk.context_header,
            chunk.content,
            config.extract_entity_types,
            config.extract_relation_types,
            asks=MALFORMED_ASKS,
        )
    except ModelError as exc:
        if exc.retryable and not queue_try_of(parts).is_last_attempt:
            raise
        _log_dropped(payload, f"{exc.code}: {exc}")
        return False
    if asked.reading is None:
        _log_dropped(payload, f"malformed answers: {asked.malformed[-1]}")
        return False
    extraction = ChunkExtraction(chunk.id, asked.reading.entities, asked.reading.relations)
    written = parts.graph.write_chunk(
        knowledge.tenant_id,
        knowledge.knowledge_base_id,
        knowledge.id,
        payload.attempt,
        extraction,
        chunk_revision=payload.content_revision,
    )
    if not written:
        _log_dropped(payload, "the chunk or its knowledge changed before the write")
        return False
    log.info(
        "graph of chunk %s (knowledge %s, content revision %s) written again: "
        "%s entities, %s relations",
        chunk.id,
        knowledge.id,
        payload.content_revision,
        len(extraction.entities),
        len(extraction.relations),
    )
    return True


def _chunk(chunks: ChunkRepository, payload: GraphRefreshPayload) -> Chunk | None:
    """The payload's chunk while it is still the enabled text chunk of that revision."""
    found = chunks.get_many([payload.chunk_id], tenant_id=None)
    return next(
        (
            c
            for c in found
            if c.knowledge_id == payload.knowledge_id
            and c.attempt == payload.attempt
            and c.chunk_type == ChunkType.TEXT
            and c.is_enabled
            and c.content_revision == payload.content_revision
        ),
        None,
    )


def _log_dropped(payload: GraphRefreshPayload, why: str) -> None:
    log.info(
        "graph refresh of chunk %s (knowledge %s, content revision %s) writes nothing: %s",
        payload.chunk_id,
        payload.knowledge_id,
        payload.content_revision,
        why,
    )
