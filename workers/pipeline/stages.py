"""The work of each stage; document.py decides the order and what failure means."""

from __future__ import annotations

import io
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, BinaryIO

from storage.db.repositories.chunks import NewChunk
from workers.chunker import ChunkerConfig, TextChunk, split_markdown
from workers.chunker.html_tables import normalize_html_tables
from workers.context import WorkerContext
from workers.docreader_client import DocReaderCallError, DocReaderCancelled, ReadConfig
from workers.embedding.base import EmbeddingEndpointRefused, EmbeddingError
from workers.pipeline.chunks.indexing import index_chunks
from workers.pipeline.effective_config import EffectiveConfig
from workers.pipeline.reading.images import DocumentImages
from workers.pipeline.reading.transcription import transcribe
from workers.pipeline.reading.url_source import (
    PAGE_FILE_NAME,
    PAGE_FILE_TYPE,
    FetchedUrl,
    fetch_url_knowledge,
    record_page_title,
)
from workers.pipeline.round.checkpoint import RoundCheckpoint
from workers.pipeline.round.cleanup import remove_round_products
from workers.pipeline.round.errors import (
    ChunkingFailed,
    DocReaderFailed,
    EmbeddingFailed,
    EmptyDocument,
    ModelEndpointRefused,
    Superseded,
)
from workers.pipeline.round.resume import ChunkPlan, PlannedChunk, parse_fingerprint
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.time_limit import TimeBudget

# Chunk ids are derived, not random, so a retried attempt rewrites the same rows and index
# entries instead of adding new ones.
CHUNK_NAMESPACE = uuid.UUID("5b0f6d1e-3c55-4f57-9a57-6c1b1b9d0a11")
# The docreader answers these for the file itself (malformed, unsupported, an engine that
# cannot run here): the same file fails the same way on every attempt.
_PERMANENT_DOCREADER_CODES = frozenset(
    {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED"}
)


def chunk_id(knowledge_id: str, attempt: int, chunk_type: str, index: int) -> str:
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{knowledge_id}:{attempt}:{chunk_type}:{index}"))


def read_document(
    ctx: WorkerContext,
    tracker: SpanTracker,
    checkpoint: RoundCheckpoint,
    knowledge: Any,
    config: EffectiveConfig,
) -> str:
    """Stage docreader: the stored file (a URL knowledge's is fetched first) → Markdown,
    images stored and linked. The call is cancelled as soon as the round must stop, however
    long the parse would still take."""
    if knowledge.type == "manual":
        tracker.skip("docreader", "manual knowledge is Markdown already")
        return str(knowledge.content or "")
    is_url = knowledge.type == "url"
    tracker.begin(
        "docreader",
        {
            "file_name": knowledge.file_name,
            "file_type": knowledge.file_type,
            "is_url": is_url,
            **({"url": knowledge.source} if is_url else {}),
            "engine": config.parser_choice(knowledge.file_type).engine,
        },
    )
    fetched: FetchedUrl | None = None
    if is_url:
        fetched = fetch_url_knowledge(
            ctx, knowledge, tracker.attempt, config=config, should_stop=checkpoint.should_stop
        )
        tracker.progress("docreader", fetched.fetch.span_fields())
        knowledge = fetched.knowledge
    # A download may turn out to be another type than planned; a page's type is "url".
    choice = config.parser_choice(knowledge.file_type)
    page_url = fetched.fetch.final_url if fetched is not None and fetched.page is not None else ""
    images = DocumentImages(ctx, knowledge, before_fetch=checkpoint.check, base_url=page_url)
    source, file_name, file_type = _document_source(ctx, knowledge, fetched)
    try:
        with source as stream:
            outcome = ctx.docreader.read_file(
                stream,
                file_name=file_name,
                file_type=file_type,
                config=ReadConfig(
                    engine=choice.engine,
                    options=choice.engine_options,
                    enable_ocr=choice.switch("enable_ocr"),
                    first_row_header=choice.switch("first_row_header"),
                    ocr_languages=config.ocr_languages,
                ),
                should_stop=checkpoint.should_stop,
                on_image=images.add,
            )
    except DocReaderCancelled as exc:
        raise Superseded(knowledge.id) from exc
    except DocReaderCallError as exc:
        raise DocReaderFailed(
            "docreader",
            f"{exc.code_name}: {exc.message}",
            permanent=exc.code_name in _PERMANENT_DOCREADER_CODES,
        ) from exc
    checkpoint.check()
    markdown = outcome.markdown
    if outcome.is_audio:
        markdown = transcribe(config, outcome, knowledge.file_name, ctx.settings.url_policy)
        checkpoint.check()
    stored = images.finish(markdown)
    if not stored.markdown.strip() and not stored.stored:
        name = file_name if fetched is None or fetched.page is None else "the page"
        raise EmptyDocument("docreader", f"{name} has no text or images to index")
    if fetched is not None:
        record_page_title(ctx, knowledge, tracker.attempt, outcome.metadata)
    tracker.end(
        "docreader",
        {
            **(fetched.fetch.span_fields() if fetched is not None else {}),
            "total_text_chars": len(stored.markdown),
            "image_count": len(stored.stored),
            "icons_dropped": stored.icons_dropped,
            "invalid_images_dropped": stored.invalid_dropped,
            "remote_images_fetched": stored.remote_fetched,
            "remote_images_refused": stored.remote_refused,
            "remote_images_failed": stored.remote_failed,
            "engine": choice.engine,
            "detected_file_type": outcome.detected_file_type,
            "transcribed": outcome.is_audio,
            **{f"meta_{k}": v for k, v in outcome.metadata.items()},
        },
    )
    return stored.markdown


def _document_source(
    ctx: WorkerContext, knowledge: Any, fetched: FetchedUrl | None
) -> tuple[BinaryIO, str, str]:
    """What the docreader reads, under which name and type: a fetched web page, else the
    knowledge's stored file (its file_path a resource:// reference, or a plain path)."""
    if fetched is not None and fetched.page is not None:
        return io.BytesIO(fetched.page), PAGE_FILE_NAME, PAGE_FILE_TYPE
    return ctx.catalog.open(knowledge.file_path), knowledge.file_name, knowledge.file_type


def chunk_document(
    ctx: WorkerContext,
    tracker: SpanTracker,
    knowledge: Any,
    model_key: str,
    markdown: str,
    config: EffectiveConfig,
) -> ChunkPlan:
    """Stage chunking: Markdown → text chunks written to the database, only while this
    round is still the knowledge's current one. The same parse as an earlier try's (or a
    requeued older round's) keeps that try's chunks, and embedding goes on where it was."""
    tracker.begin(
        "chunking",
        {
            "chunk_size": config.chunk_size,
            "chunk_overlap": config.chunk_overlap,
            "total_text_chars": len(markdown),
        },
    )
    try:
        chunker_config = ChunkerConfig(
            chunk_size=config.chunk_size,
            chunk_overlap=config.chunk_overlap,
            **({"separators": config.separators} if config.separators else {}),
        )
        pieces = split_markdown(normalize_html_tables(markdown), chunker_config)
    except ValueError as exc:
        # Splitting is a pure function of the text and the config: a refused config (one
        # stored before the API checked it) fails the same way on every attempt.
        raise ChunkingFailed("chunking", str(exc), permanent=True) from exc
    planned = [
        PlannedChunk(
            chunk_id(knowledge.id, tracker.attempt, "text", p.index),
            p.index,
            p.content,
            p.context_header,
        )
        for p in pieces
    ]
    tracker.progress("chunking", {"chunks_planned": len(planned)})
    oversize = oversize_figures(pieces, chunker_config.chunk_size)
    fingerprint = parse_fingerprint(model_key, config.embedding, _title(knowledge), pieces)
    resumed = _resume(ctx, tracker, knowledge, model_key, fingerprint, planned, oversize)
    if resumed is not None:
        return resumed
    # Whatever earlier tries and rounds left (rows an older round's task wrote after it was
    # told to stop, or this round's from another parse) would collide with this parse's.
    remove_round_products(ctx, knowledge.id, tracker.attempt, model_key, and_older=True)
    rows = _chunk_rows(knowledge, tracker.attempt, pieces, planned)
    if not ctx.chunks.insert_for_attempt(knowledge.id, tracker.attempt, rows):
        raise Superseded(knowledge.id)
    ctx.index_checkpoints.start(knowledge.id, tracker.attempt, fingerprint, len(planned))
    tracker.end(
        "chunking",
        {"chunks_planned": len(planned), "chunks_written": len(planned), **oversize},
    )
    return ChunkPlan(planned, fingerprint)


def oversize_figures(pieces: Sequence[TextChunk], chunk_size: int) -> dict[str, int]:
    """The chunking span's record of the chunks longer than ``chunk_size``: the chunker makes
    one only of a unit it never cuts (a table row with the header rows it repeats, or a
    fence whose opening and closing lines the size cannot hold), so a document whose chunks
    will be cut short by the embedding model can be found from its spans."""
    lengths = [len(p.content) for p in pieces if len(p.content) > chunk_size]
    return {"oversize_chunks": len(lengths), "oversize_max_chars": max(lengths, default=0)}


def _resume(
    ctx: WorkerContext,
    tracker: SpanTracker,
    knowledge: Any,
    model_key: str,
    fingerprint: str,
    planned: list[PlannedChunk],
    oversize: dict[str, int],
) -> ChunkPlan | None:
    """The plan of an earlier try of the same parse, its chunks kept; None to start over."""
    point = ctx.index_checkpoints.resume(knowledge.id, tracker.attempt, fingerprint, len(planned))
    if point is None:
        return None
    kept = [replace(plan, id=i) for plan, i in zip(planned, point.chunk_ids, strict=True)]
    # Older rounds' other products (a round taken over keeps only its text chunks).
    remove_round_products(ctx, knowledge.id, tracker.attempt - 1, model_key, and_older=True)
    tracker.end(
        "chunking",
        {
            "chunks_planned": len(planned),
            "chunks_written": 0,
            "chunks_kept": len(kept),
            "resumed_from_attempt": point.from_attempt,
            **oversize,
        },
    )
    return ChunkPlan(kept, fingerprint, point.indexed_count)


def _title(knowledge: Any) -> str:
    return str(knowledge.title or knowledge.file_name or "")


def _chunk_rows(
    knowledge: Any, attempt: int, pieces: Sequence[TextChunk], planned: Sequence[PlannedChunk]
) -> list[NewChunk]:
    return [
        NewChunk(
            id=plan.id,
            tenant_id=knowledge.tenant_id,
            knowledge_base_id=knowledge.knowledge_base_id,
            knowledge_id=knowledge.id,
            attempt=attempt,
            chunk_index=plan.index,
            chunk_type="text",
            content=plan.content,
            context_header=plan.context_header,
            start_at=piece.start,
            end_at=piece.end,
            is_enabled=True,
            pre_chunk_id=planned[i - 1].id if i > 0 else None,
            next_chunk_id=planned[i + 1].id if i + 1 < len(planned) else None,
        )
        for i, (piece, plan) in enumerate(zip(pieces, planned, strict=True))
    ]


def embed_and_index(
    ctx: WorkerContext,
    tracker: SpanTracker,
    checkpoint: RoundCheckpoint,
    knowledge: Any,
    model_key: str,
    plan: ChunkPlan,
    config: EffectiveConfig,
    budget: TimeBudget,
) -> None:
    """Stage embedding: vectors in batches, each batch indexed as soon as it is embedded and
    then checkpointed, from the first chunk an earlier try of the same parse did not index.
    Before and after embedding each batch the round checks whether it must stop, so once
    told to, it indexes nothing beyond a batch it may be writing at that moment."""
    if not config.needs_embedding:
        tracker.skip("embedding", "vector and keyword indexing are both disabled")
        return
    total = len(plan.chunks)
    resumed = {"chunks_resumed": plan.indexed} if plan.indexed else {}
    tracker.begin("embedding", {"model": model_key, "chunks": total, **resumed})

    def batch_indexed(done: int) -> None:
        ctx.index_checkpoints.advance(knowledge.id, tracker.attempt, plan.fingerprint, done)
        timing = budget.report(done, total)
        tracker.progress("embedding", {"chunks_embedded": done, **resumed, **timing})

    try:
        outcome = index_chunks(
            ctx,
            knowledge,
            model_key,
            config.embedding,
            plan.chunks,
            check=checkpoint.check,
            on_progress=batch_indexed,
            start=plan.indexed,
        )
    except EmbeddingEndpointRefused as exc:
        raise ModelEndpointRefused("embedding", str(exc)) from exc
    except EmbeddingError as exc:
        raise EmbeddingFailed("embedding", str(exc)) from exc
    tracker.end(
        "embedding",
        {
            "chunks_embedded": outcome.indexed,
            "chunks_indexed": outcome.indexed,
            **resumed,
            "dimension": outcome.dimension,
        },
    )
