"""knowledge:graph_extract — the entities and relations of one graph chunk of a round
(spec: TypeChunkExtract, one per chunk of selectGraphChunks), one of its post-processing
subtasks.

The extraction model of the effective configuration (``extract.model``) is asked for the
chunk's entities and relations in structured output (``graph_text``), held to the
configured ``entity_types`` / ``relation_types``; an answer that is not the JSON asked for
is asked again up to ``MALFORMED_ASKS`` times, then the chunk counts as done with the error
in its step's outputs. What was read is merged into the knowledge base's graph
(``GraphStore.write_chunk``), which writes only while the knowledge is finalizing at this
round: a round reparsed, cancelled or deleted meanwhile gets nothing and is not counted.

A refusal of the model itself (credentials, a model not served, a request it rejects, an
endpoint the SSRF rules refuse, no model at all) ends the subtask failed at once with its
code. A model unavailable (429, 5xx, timeout) fails the try and the queue tries again; the
last try ends the subtask failed with the error. The end is recorded with the round's
counter decrement in one transaction (``SubtaskEndRepository``, kind "graph"), so a retried
task, or a dead letter after a try ended it, counts once. Its progress is the step span
``postprocess.graph.{index}`` under the round's postprocess stage.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from core.effective_config import EffectiveConfig
from core.payloads import GraphExtractPayload
from core.statuses import ChunkType, ParseStatus
from core.statuses import Stage as StageName
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.subtask_ends import SubtaskEndRepository
from storage.graph.store import ChunkExtraction, GraphStore
from workers.enrichment.graph_text import Asked, ask_extraction
from workers.models.errors import ModelError
from workers.models.protocols import ChatModel
from workers.models.registry import ModelRegistry
from workers.pipeline.chunks.indexing import knowledge_title
from workers.pipeline.document import queue_try_of
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.parts import CheckpointParts, RoundSpanParts
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id
from workers.pipeline.round.subtasks import close_completed_round, end_subtask_failed, open_subtask

log = logging.getLogger(__name__)

KIND = "graph"
NO_EXTRACT_MODEL = "NO_EXTRACT_MODEL"
GRAPH_EXTRACT_FAILED = "GRAPH_EXTRACT_FAILED"
ANSWER_MALFORMED = "GRAPH_ANSWER_MALFORMED"
# How many times one try asks for a chunk's extraction while the answers are malformed.
MALFORMED_ASKS = 3
# The tasks run while their round is finalizing: its last subtask's end completes it.
GRAPH_ROUND_STATUSES = (ParseStatus.FINALIZING,)
# What a graph chunk may be (a text chunk, or a scanned page's picture's OCR text).
GRAPH_CHUNK_TYPES = (ChunkType.TEXT, ChunkType.IMAGE_OCR)


def step_name(index: int) -> str:
    return f"{StageName.POSTPROCESS}.{KIND}.{index}"


class GraphParts(RoundSpanParts, CheckpointParts, Protocol):
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def subtask_ends(self) -> SubtaskEndRepository: ...
    @property
    def models(self) -> ModelRegistry: ...
    @property
    def graph(self) -> GraphStore: ...


def extract_graph(parts: GraphParts, payload: GraphExtractPayload) -> bool:
    """Merge the chunk's entities and relations into the graph; True when this try ended
    the subtask. Raises ModelError for a failure the queue should retry (nothing written)."""
    opened = open_subtask(
        parts, payload.knowledge_id, payload.attempt, (KIND, payload.index), GRAPH_ROUND_STATUSES
    )
    if opened is None:
        return False
    knowledge, config = opened.knowledge, opened.config
    queue_try = queue_try_of(parts)
    tracker = _tracker(parts, knowledge, payload.attempt)
    step = step_name(payload.index)
    chunk = _chunk(parts.chunks, knowledge, payload)
    tracker.begin_step(
        step,
        stage=StageName.POSTPROCESS,
        parent_id=stage_span_id(parts.spans, knowledge.id, payload.attempt, StageName.POSTPROCESS),
        inputs={
            "chunk_id": payload.chunk_id,
            "chunk_type": chunk.chunk_type if chunk is not None else "",
            "model": config.extract_model.model,
            "entity_types": list(config.extract_entity_types),
            "relation_types": list(config.extract_relation_types),
            "queue_try": queue_try.attempt_number,
        },
    )
    try:
        model = parts.models.chat(config.extract_model)
        if model is None:
            end_failed(
                parts,
                knowledge,
                payload,
                NO_EXTRACT_MODEL,
                "the configuration names no extraction model (extract.model)",
                tracker,
            )
            return False
        return _extract(parts, knowledge, payload, config, model, chunk, tracker)
    except Superseded:
        tracker.fail(step, "SUPERSEDED", "the round was reparsed, cancelled or deleted")
        return False
    except ModelError as exc:
        if exc.retryable and not queue_try.is_last_attempt:
            tracker.fail(step, exc.code, f"{exc} (tried again)")
            raise
        end_failed(parts, knowledge, payload, exc.code, str(exc), tracker)
        return False


def end_failed(
    parts: GraphParts,
    knowledge: Knowledge,
    payload: GraphExtractPayload,
    code: str,
    message: str,
    tracker: SpanTracker | None = None,
) -> None:
    """The subtask failed for good (also the dead-letter path): what a try wrote of its chunk
    goes, it counts as ended, its step fails with why. A subtask an earlier try ended keeps
    what that try wrote."""
    if parts.subtask_ends.ended(knowledge.id, payload.attempt, KIND, payload.index):
        return
    if payload.chunk_id:
        # An empty extraction replaces what this chunk wrote (a try that crashed after it).
        parts.graph.write_chunk(
            knowledge.tenant_id,
            knowledge.knowledge_base_id,
            knowledge.id,
            payload.attempt,
            ChunkExtraction(payload.chunk_id),
        )
    end_subtask_failed(
        parts,
        knowledge.id,
        payload.attempt,
        (KIND, payload.index),
        step_name(payload.index),
        (code, message),
        tracker or _tracker(parts, knowledge, payload.attempt),
    )


def _extract(
    parts: GraphParts,
    knowledge: Knowledge,
    payload: GraphExtractPayload,
    config: EffectiveConfig,
    model: ChatModel,
    chunk: Chunk | None,
    tracker: SpanTracker,
) -> bool:
    asked = (
        ask_extraction(
            model,
            knowledge_title(knowledge),
            chunk.context_header,
            chunk.content,
            config.extract_entity_types,
            config.extract_relation_types,
            asks=MALFORMED_ASKS,
        )
        if chunk is not None
        else None
    )
    reading = asked.reading if asked is not None else None
    extraction = ChunkExtraction(
        payload.chunk_id,
        reading.entities if reading is not None else (),
        reading.relations if reading is not None else (),
    )
    # Also when nothing was read: the write replaces what an earlier try of it wrote.
    if not parts.graph.write_chunk(
        knowledge.tenant_id, knowledge.knowledge_base_id, knowledge.id, payload.attempt, extraction
    ):
        raise Superseded(knowledge.id)
    ended = parts.subtask_ends.end_once(knowledge.id, payload.attempt, KIND, payload.index)
    if ended is None:
        raise Superseded(knowledge.id)
    tracker.end(step_name(payload.index), _outputs(extraction, asked))
    if ended.completed_round:
        close_completed_round(parts, knowledge.id, payload.attempt)
    return ended.counted


def _chunk(
    chunks: ChunkRepository, knowledge: Knowledge, payload: GraphExtractPayload
) -> Chunk | None:
    """The payload's chunk while it is still one of the round's enabled graph chunks."""
    found = chunks.get_many([payload.chunk_id], tenant_id=None) if payload.chunk_id else []
    return next(
        (
            c
            for c in found
            if c.knowledge_id == knowledge.id
            and c.attempt == payload.attempt
            and c.chunk_type in GRAPH_CHUNK_TYPES
            and c.is_enabled
        ),
        None,
    )


def _outputs(extraction: ChunkExtraction, asked: Asked | None) -> dict[str, Any]:
    outputs: dict[str, Any] = {
        "entities": len(extraction.entities),
        "relations": len(extraction.relations),
    }
    if asked is None:
        outputs["error"] = "the chunk is no longer one of the round's (removed or disabled)"
        return outputs
    outputs["asks"] = asked.asks
    if asked.reading is None:
        outputs["error"] = f"{ANSWER_MALFORMED}: {asked.malformed[-1]}"
    elif asked.reading.dropped:
        outputs["dropped"] = dict(asked.reading.dropped)
    if asked.malformed:
        outputs["malformed_answers"] = list(asked.malformed)
    return outputs


def _tracker(parts: GraphParts, knowledge: Knowledge, attempt: int) -> SpanTracker:
    return round_tracker(parts, knowledge, attempt, queue_try=queue_try_of(parts).attempt_number)
