"""Rows, the services' results and JSON forms → protobuf messages."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from google.protobuf import struct_pb2, timestamp_pb2
from sluice.v1 import (
    common_pb2,
    config_pb2,
    graph_pb2,
    knowledge_base_pb2,
    knowledge_pb2,
    resource_pb2,
    search_pb2,
    tag_pb2,
)

from server.services.config_json import from_json
from server.services.faq_search import FaqMatch
from server.services.graph_expansion import GraphVia
from server.services.knowledge_bases import CountedKnowledgeBase
from server.services.knowledge_reads import ReadChunk
from server.services.progress import SpanReading, Stall
from server.services.resources import NamedResource
from server.services.search import Found
from server.services.tags import TaggedKnowledge
from storage.db.models import Tag
from storage.db.repositories.resources import KNOWLEDGE_FILES, KNOWLEDGE_IMAGE, KNOWLEDGE_ORIGINAL
from storage.graph.store import Entity
from workers.pipeline.round.spans import span_to_dict


def timestamp(value: datetime | str | None) -> timestamp_pb2.Timestamp | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:  # SQLite returns naive UTC.
        value = value.replace(tzinfo=UTC)
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(value)
    return ts


E = TypeVar("E", bound=int)


def _enum(wrapper: Any, prefix: str, value: str | None, _type: type[E]) -> E:
    """Stored lower-case names ("completed") → protobuf enum values (PARSE_STATUS_COMPLETED)."""
    return cast(E, wrapper.Value(f"{prefix}_{(value or 'unspecified').upper()}"))


def parse_status(value: str) -> common_pb2.ParseStatus:
    return _enum(common_pb2.ParseStatus, "PARSE_STATUS", value, common_pb2.ParseStatus)


def parse_status_name(value: int) -> str:
    return common_pb2.ParseStatus.Name(value).removeprefix("PARSE_STATUS_").lower()


def enable_status(value: str) -> common_pb2.EnableStatus:
    return _enum(common_pb2.EnableStatus, "ENABLE_STATUS", value, common_pb2.EnableStatus)


def public_config(raw: Mapping[str, Any] | None) -> config_pb2.KnowledgeBaseConfig:
    """The stored config without secrets: api keys are write-only."""
    config = from_json(raw, config_pb2.KnowledgeBaseConfig())
    for model in _models(config):
        model.api_key = ""
    return config


def _models(config: config_pb2.KnowledgeBaseConfig) -> list[config_pb2.ModelConfig]:
    return [
        config.embedding,
        config.vlm.model,
        config.asr.model,
        config.question_generation.model,
        config.extract.model,
        config.summary.model,
        config.wiki.synthesis_model,
    ]


def knowledge_base(counted: CountedKnowledgeBase) -> knowledge_base_pb2.KnowledgeBase:
    row = counted.row
    return knowledge_base_pb2.KnowledgeBase(
        id=row.id,
        tenant_id=row.tenant_id,
        name=row.name,
        description=row.description or "",
        type=_enum(
            knowledge_base_pb2.KnowledgeBaseType,
            "KNOWLEDGE_BASE_TYPE",
            row.type,
            knowledge_base_pb2.KnowledgeBaseType,
        ),
        config=public_config(row.config),
        knowledge_count=counted.knowledge_count,
        created_at=timestamp(row.created_at),
        updated_at=timestamp(row.updated_at),
        profile=knowledge_base_pb2.KnowledgeBaseProfile(
            description=row.profile_description or "",
            generated_at=timestamp(row.profile_generated_at),
        ),
    )


def knowledge(tagged: TaggedKnowledge) -> knowledge_pb2.Knowledge:
    row = tagged.row
    overrides = from_json(row.process_overrides, config_pb2.ProcessConfig())
    return knowledge_pb2.Knowledge(
        id=row.id,
        tenant_id=row.tenant_id,
        knowledge_base_id=row.knowledge_base_id,
        type=_enum(common_pb2.KnowledgeType, "KNOWLEDGE_TYPE", row.type, common_pb2.KnowledgeType),
        title=row.title or "",
        description=row.description or "",
        source=row.source or "",
        file_name=row.file_name or "",
        file_type=row.file_type or "",
        file_size=row.file_size or 0,
        file_hash=row.file_hash or "",
        parse_status=parse_status(row.parse_status),
        enable_status=enable_status(row.enable_status),
        summary_status=_enum(
            common_pb2.SummaryStatus, "SUMMARY_STATUS", row.summary_status, common_pb2.SummaryStatus
        ),
        error_message=row.error_message or "",
        metadata={str(k): str(v) for k, v in (row.meta or {}).items()},
        tag_ids=tagged.tag_ids,
        channel=row.channel or "",
        attempt=row.attempt or 0,
        pending_subtasks_count=row.pending_subtasks_count or 0,
        process_overrides=overrides,
        enable_multimodel=bool(row.enable_multimodel),
        created_at=timestamp(row.created_at),
        updated_at=timestamp(row.updated_at),
        processed_at=timestamp(row.processed_at),
        summary=row.summary or "",
        summary_stale=bool(row.summary_stale),
        summary_error=row.summary_error or "",
    )


def span(data: Mapping[str, Any]) -> knowledge_pb2.Span:
    """A span's JSON form (workers.pipeline.round.spans.span_to_dict) → message."""
    inputs, outputs = struct_pb2.Struct(), struct_pb2.Struct()
    inputs.update(_bounded_fields(data.get("input")))
    outputs.update(_bounded_fields(data.get("output")))
    stage = data.get("stage") or ""
    return knowledge_pb2.Span(
        id=data["id"],
        knowledge_id=data["knowledge_id"],
        attempt=data["attempt"],
        parent_id=data.get("parent_id") or "",
        name=data["name"],
        kind=_enum(common_pb2.SpanKind, "SPAN_KIND", data.get("kind"), common_pb2.SpanKind),
        stage=_enum(common_pb2.Stage, "STAGE", stage, common_pb2.Stage),
        status=_enum(common_pb2.SpanStatus, "SPAN_STATUS", data["status"], common_pb2.SpanStatus),
        input=inputs,
        output=outputs,
        error_code=data.get("error_code") or "",
        error_message=_cut(data.get("error_message") or "", SPAN_MESSAGE_MAX_CHARS),
        started_at=timestamp(data.get("started_at")),
        ended_at=timestamp(data.get("ended_at")),
        duration_ms=int(data.get("duration_ms") or 0),
        updated_at=timestamp(data.get("updated_at")),
        sequence=int(data.get("sequence") or 0),
    )


# A span carries counters and short labels; what a file or a library put there (a document's
# metadata, an exception's text) is cut to these, so GetSpans and a WatchSpans snapshot
# (an attempt has about ten spans) stay far under any message limit.
SPAN_MESSAGE_MAX_CHARS = 4096
SPAN_FIELDS_MAX = 32
SPAN_VALUE_MAX_CHARS = 512


def _bounded_fields(values: Mapping[str, Any] | None) -> dict[str, Any]:
    """The first SPAN_FIELDS_MAX entries, their text cut to SPAN_VALUE_MAX_CHARS."""
    kept = list((values or {}).items())[:SPAN_FIELDS_MAX]
    return {
        str(key)[:SPAN_VALUE_MAX_CHARS]: _cut(value, SPAN_VALUE_MAX_CHARS)
        if isinstance(value, str)
        else value
        for key, value in kept
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chunk(read: ReadChunk) -> knowledge_pb2.Chunk:
    row = read.row
    image_info, metadata = struct_pb2.Struct(), struct_pb2.Struct()
    if isinstance(row.image_info, dict):
        image_info.update(row.image_info)
    if isinstance(row.meta, dict):
        metadata.update(row.meta)
    return knowledge_pb2.Chunk(
        id=row.id,
        knowledge_id=row.knowledge_id,
        knowledge_base_id=row.knowledge_base_id,
        chunk_index=row.chunk_index,
        chunk_type=_enum(
            knowledge_pb2.ChunkType, "CHUNK_TYPE", row.chunk_type, knowledge_pb2.ChunkType
        ),
        content=read.content,
        start_at=row.start_at or 0,
        end_at=row.end_at or 0,
        parent_chunk_id=row.parent_chunk_id or "",
        pre_chunk_id=row.pre_chunk_id or "",
        next_chunk_id=row.next_chunk_id or "",
        is_enabled=bool(row.is_enabled) and read.knowledge_enabled,
        image_info=image_info,
        metadata=metadata,
    )


_STALLS = {
    Stall.NONE: common_pb2.STALL_STATE_UNSPECIFIED,
    Stall.RUNNING: common_pb2.STALL_STATE_RUNNING,
    Stall.QUEUED: common_pb2.STALL_STATE_QUEUED,
    Stall.STALLED: common_pb2.STALL_STATE_STALLED,
}


def spans(reading: SpanReading) -> knowledge_pb2.GetSpansResponse:
    return knowledge_pb2.GetSpansResponse(
        knowledge_id=reading.knowledge.id,
        attempt=reading.attempt,
        spans=[span(span_to_dict(s)) for s in reading.spans],
        parse_status=parse_status(reading.knowledge.parse_status),
        last_activity_at=timestamp(reading.last_activity_at),
        stall_state=_STALLS[reading.stall],
        sequence=reading.sequence,
    )


def search_result(found: Found) -> search_pb2.SearchResult:
    return search_pb2.SearchResult(
        chunk_id=found.chunk_id,
        knowledge_id=found.knowledge_id,
        knowledge_base_id=found.knowledge_base_id,
        content=found.content,
        score=found.score,
        chunk_index=found.chunk_index,
        knowledge_title=found.knowledge_title,
        matched_chunk_id=found.matched_chunk_id,
        matched_content=found.matched_content,
        graph_match=_graph_match(found.graph),
        faq=_faq_match(found.faq),
        # Unspecified ("" → UNSPECIFIED) when the chunk matched itself.
        matched_chunk_type=_enum(
            knowledge_pb2.ChunkType,
            "CHUNK_TYPE",
            found.matched_chunk_type,
            knowledge_pb2.ChunkType,
        ),
    )


def _faq_match(match: FaqMatch | None) -> search_pb2.FAQMatch | None:
    if match is None:
        return None
    return search_pb2.FAQMatch(
        entry_id=match.entry_id,
        standard_question=match.standard_question,
        answers=match.answers,
    )


def _graph_match(via: GraphVia | None) -> search_pb2.GraphMatch | None:
    if via is None:
        return None
    return search_pb2.GraphMatch(hops=via.hops, entities=[graph_entity(e) for e in via.entities])


def graph_entity(found: Entity) -> graph_pb2.Entity:
    return graph_pb2.Entity(
        id=found.id,
        knowledge_base_id=found.knowledge_base_id,
        name=found.name,
        type=found.type,
        description=found.description,
        chunk_count=found.chunk_count,
        knowledge_count=found.knowledge_count,
    )


_RESOURCE_KINDS = {
    KNOWLEDGE_ORIGINAL: resource_pb2.RESOURCE_KIND_ORIGINAL,
    KNOWLEDGE_IMAGE: resource_pb2.RESOURCE_KIND_IMAGE,
}


def resource(named: NamedResource) -> resource_pb2.Resource:
    stored = named.resource
    return resource_pb2.Resource(
        ref=stored.ref,
        kind=_RESOURCE_KINDS.get(stored.owner_type, resource_pb2.RESOURCE_KIND_UNSPECIFIED),
        knowledge_id=stored.owner_id if stored.owner_type in KNOWLEDGE_FILES else "",
        content_type=stored.content_type,
        size=stored.size,
        file_name=named.file_name,
        created_at=timestamp(stored.created_at),
    )


def tag(row: Tag) -> tag_pb2.Tag:
    return tag_pb2.Tag(
        id=row.id,
        tenant_id=row.tenant_id,
        knowledge_base_id=row.knowledge_base_id,
        name=row.name,
        color=row.color or "",
        created_at=timestamp(row.created_at),
    )
