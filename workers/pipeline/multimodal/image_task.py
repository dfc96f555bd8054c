"""image:multimodal — one stored image of a round (spec: ImageMultimodalService.Handle):
its OCR text (the docreader's tesseract) and, when the round's configuration names a VLM,
its caption, written back to the text chunk that links it (``image_info``) and as two child
chunks, ``image_ocr`` and ``image_caption``, whose parent is that text chunk, embedded and
indexed: a search for what only the picture shows finds the text chunk. With image vectors
on, the picture itself is embedded as a third child (``image_vector``).

A task whose round moved on (reparsed, cancelled, deleted) or whose text chunk no longer
lists the image as pending is dropped. Its rows are written while the round is current
(the write holds the knowledge row and checks), indexed, and checked again: a round ended
meanwhile gets back nothing. The image is then counted done, once, and the image that
leaves none pending queues the round's post-processing.

Its progress is the step span ``multimodal.image.{n}`` under the round's multimodal stage.
An image the docreader cannot read (not an image, unsupported) is done with its error; a
failure that may pass (the docreader or the embedder unreachable) fails the step and the
queue retries; after the last try the image counts as done with the error
(``image_failed``), so the round still finishes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from core.effective_config import EffectiveConfig, resolve
from core.image_bytes import sniff_image_type
from core.index_sides import index_sides
from core.payloads import ImageMultimodalPayload, KnowledgePostProcessPayload
from core.statuses import ChunkType, ParseStatus
from core.statuses import Stage as StageName
from storage.db.models import Chunk, Knowledge
from storage.db.repositories.chunks import NewChunk
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.files.base import StorageError
from storage.files.resource_catalog import CatalogError
from storage.queue.base import NotInTaskError
from workers.docreader_client import DocReaderCallError, DocReaderCancelled
from workers.models.errors import ModelError
from workers.models.prompts import vlm_caption_prompt
from workers.models.protocols import VisionModels
from workers.pipeline.chunks.indexing import ChunkIndexer
from workers.pipeline.multimodal.handoff import enqueue_post_process
from workers.pipeline.multimodal.image_vector import ImageVector, embed_picture
from workers.pipeline.multimodal.ocr import ocr_supported, read_image_text
from workers.pipeline.parts import ImageTaskParts
from workers.pipeline.round.checkpoint import RoundCheckpoint, row_is_current
from workers.pipeline.round.cleanup import stop_reason
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.spans import SpanTracker, round_tracker, stage_span_id

log = logging.getLogger(__name__)

STEP_FAILED = "IMAGE_FAILED"
# The docreader answers these for the image itself: it reads the same way on every try.
_PERMANENT_CODES = frozenset({"INVALID_ARGUMENT", "FAILED_PRECONDITION", "UNIMPLEMENTED"})


def step_name(image_index: int) -> str:
    return f"{StageName.MULTIMODAL}.image.{image_index}"


def describe_image(ctx: ImageTaskParts, payload: ImageMultimodalPayload) -> None:
    repo = ImageChunkRepository(ctx.db)
    knowledge = ctx.knowledges.get(payload.knowledge_id, None)
    if not row_is_current(knowledge, payload.attempt):
        log.info(
            "image %s of knowledge %s attempt %s: the round moved on; dropped",
            payload.image_index,
            payload.knowledge_id,
            payload.attempt,
        )
        return
    parent = repo.parent(knowledge.id, payload.attempt, payload.chunk_id, payload.image_url)
    kb = ctx.knowledge_bases.get(None, knowledge.knowledge_base_id)
    if parent is None or kb is None:
        # Orphaned, or done by an earlier try whose enqueue of what follows failed.
        _post_process_if_last(ctx, knowledge, payload)
        return
    config = resolve(kb.config or {}, knowledge.process_overrides)
    tracker = _tracker(ctx, knowledge, payload)
    step = step_name(payload.image_index)
    tracker.begin_step(
        step,
        stage=StageName.MULTIMODAL,
        parent_id=stage_span_id(ctx.spans, knowledge.id, payload.attempt, StageName.MULTIMODAL),
        inputs={
            "image_url": payload.image_url,
            "chunk_id": payload.chunk_id,
            "ocr": payload.enable_ocr,
            "caption": payload.enable_caption,
            "vector": payload.enable_vector,
        },
    )
    checkpoint = RoundCheckpoint(ctx, knowledge.id, payload.attempt)
    sides = index_sides(kb.embedding_model_key, config)
    children: list[NewChunk] = []
    try:
        picture, found = _read(ctx, config, payload, checkpoint, ctx.models)
        children = _children(knowledge, parent, payload, found)
        vector = (
            embed_picture(ctx.embedders, config, knowledge, parent, payload, picture, found)
            if payload.enable_vector and picture is not None
            else None
        )
        written = children + ([vector.chunk] if vector is not None else [])
        if not repo.write_children(knowledge.id, payload.attempt, parent.id, written):
            raise Superseded(knowledge.id)
        if children:
            ChunkIndexer(
                ctx.embedders, ctx.index, ctx.settings.models.embed_batch_size
            ).index_chunks(
                knowledge,
                kb.embedding_model_key,
                config.embedding,
                children,
                check=checkpoint.check,
                keyword=sides.keyword,
            )
        children = written
        if vector is not None:
            _index_vector(ctx, knowledge, kb.embedding_model_key, vector, keyword=sides.keyword)
        # A round ended while we indexed was cleaned by the rows it found, maybe before our
        # index rows existed.
        checkpoint.check(fresh=True)
        remaining = repo.finish_image(
            knowledge.id, payload.attempt, parent.id, payload.image_url, _recorded(found)
        )
        if remaining is None:
            raise Superseded(knowledge.id)
    except Superseded:
        _remove(ctx, kb.embedding_model_key, children)
        reason = stop_reason(ctx, knowledge.id, payload.attempt)
        if reason is not None:  # a knowledge that is gone took its spans with it
            tracker.cancel(step, *reason)
        return
    except Exception as exc:
        tracker.fail(step, STEP_FAILED, f"{type(exc).__name__}: {exc}")
        raise
    tracker.end(step, _step_outputs(found, len(children)))
    if remaining == 0:
        enqueue_post_process(ctx.queue, _post_process_payload(payload))


def image_failed(ctx: ImageTaskParts, payload: ImageMultimodalPayload, error: str) -> None:
    """The image's last try failed: what it may have written of its child chunks goes, and
    it counts as done with the error, so the round goes on."""
    kb = ctx.knowledge_bases.get(None, payload.knowledge_base_id)
    ids = [payload.ocr_chunk_id, payload.caption_chunk_id, payload.vector_chunk_id]
    if kb is not None:
        ctx.index.delete_by_chunk_ids(kb.embedding_model_key, ids)
    ImageChunkRepository(ctx.db).delete(ids)
    remaining = ImageChunkRepository(ctx.db).finish_image(
        payload.knowledge_id,
        payload.attempt,
        payload.chunk_id,
        payload.image_url,
        {"error": error},
    )
    if remaining == 0:
        enqueue_post_process(ctx.queue, _post_process_payload(payload))


def _read(
    ctx: ImageTaskParts,
    config: EffectiveConfig,
    payload: ImageMultimodalPayload,
    checkpoint: RoundCheckpoint,
    vision: VisionModels,
) -> tuple[tuple[bytes, str] | None, dict[str, Any]]:
    """The picture (its bytes and type) and what it holds: {"ocr_text", "caption"} (either
    may be absent), or no picture and {"error"} when it cannot be read at all."""
    try:
        with ctx.catalog.open(payload.image_url) as stream:
            data = stream.read()
    except (CatalogError, StorageError) as exc:
        return None, {"error": f"the stored image cannot be read: {exc}"}
    mime_type = sniff_image_type(data) or ""
    found: dict[str, Any] = {"mime_type": mime_type}
    if payload.enable_ocr and ocr_supported(mime_type):
        try:
            found["ocr_text"] = read_image_text(
                ctx.docreader,
                data,
                mime_type,
                languages=config.ocr_languages,
                should_stop=checkpoint.should_stop,
            )
        except DocReaderCancelled as exc:
            raise Superseded(payload.knowledge_id) from exc
        except DocReaderCallError as exc:
            if exc.code_name not in _PERMANENT_CODES:
                raise
            found["error"] = f"OCR: {exc.code_name}: {exc.message}"
    model = vision.vision(config.vlm) if payload.enable_caption else None
    if model is not None:
        try:
            found["caption"] = model.describe(
                data,
                mime_type,
                vlm_caption_prompt(config.vlm.description_language, config.vlm.custom_instructions),
            ).strip()
        except ModelError as exc:
            if exc.retryable:
                raise
            # A model that refuses will refuse every try: the OCR text is kept, and why
            # there is no caption is said.
            found["caption_error"] = f"caption: {exc}"
    checkpoint.check()
    return (data, mime_type), found


def _children(
    knowledge: Knowledge, parent: Chunk, payload: ImageMultimodalPayload, found: Mapping[str, Any]
) -> list[NewChunk]:
    """The image's child chunks: its OCR text and its caption, those it has."""
    rows: list[NewChunk] = []
    kinds = (
        (ChunkType.IMAGE_OCR, "ocr_text", payload.ocr_chunk_id),
        (ChunkType.IMAGE_CAPTION, "caption", payload.caption_chunk_id),
    )
    for chunk_type, key, child_id in kinds:
        text = str(found.get(key) or "").strip()
        if not text:
            continue
        rows.append(
            NewChunk(
                id=child_id,
                tenant_id=knowledge.tenant_id,
                knowledge_base_id=knowledge.knowledge_base_id,
                knowledge_id=knowledge.id,
                attempt=payload.attempt,
                chunk_index=payload.child_index,
                chunk_type=chunk_type,
                content=text,
                context_header=parent.context_header,
                parent_chunk_id=parent.id,
                meta={"image_url": payload.image_url, "image_index": payload.image_index},
            )
        )
    return rows


def _step_outputs(found: Mapping[str, Any], chunks: int) -> dict[str, Any]:
    """The step's outputs: how much was read, not the text itself (the chunks hold it)."""
    outputs: dict[str, Any] = {"mime_type": found.get("mime_type", ""), "chunks": chunks}
    for key in ("ocr_text", "caption"):
        if key in found:
            outputs[f"{key.removesuffix('_text')}_chars"] = len(found[key])
    for key in ("error", "caption_error", "vector_error"):
        if key in found:
            outputs[key] = found[key]
    return outputs


def _recorded(found: Mapping[str, Any]) -> dict[str, Any]:
    """What the text chunk's image_info keeps of the image (spec: ImageInfo)."""
    kept = ("ocr_text", "caption", "error", "caption_error")
    return {key: found[key] for key in kept if key in found}


def _index_vector(
    ctx: ImageTaskParts, knowledge: Knowledge, model_key: str, vector: ImageVector, *, keyword: bool
) -> None:
    ctx.index.ensure_collection(model_key, len(vector.vector))
    ctx.index.upsert(model_key, [vector.index_row(knowledge, keyword=keyword)])


def _remove(ctx: ImageTaskParts, model_key: str, children: list[NewChunk]) -> None:
    if children:
        ids = [c.id for c in children]
        ctx.index.delete_by_chunk_ids(model_key, ids)
        ImageChunkRepository(ctx.db).delete(ids)


def _post_process_if_last(
    ctx: ImageTaskParts, knowledge: Knowledge, payload: ImageMultimodalPayload
) -> None:
    """A task that finds its image done already: its earlier try may have counted the last
    image and then failed to queue the post-processing."""
    if knowledge.parse_status == ParseStatus.PROCESSING and knowledge.pending_subtasks_count == 0:
        enqueue_post_process(ctx.queue, _post_process_payload(payload))
        return
    log.info(
        "image %s of knowledge %s attempt %s is orphaned or done; dropped",
        payload.image_index,
        payload.knowledge_id,
        payload.attempt,
    )


def _post_process_payload(payload: ImageMultimodalPayload) -> KnowledgePostProcessPayload:
    return KnowledgePostProcessPayload(
        tenant_id=payload.tenant_id,
        knowledge_id=payload.knowledge_id,
        knowledge_base_id=payload.knowledge_base_id,
        attempt=payload.attempt,
    )


def _tracker(
    ctx: ImageTaskParts, knowledge: Knowledge, payload: ImageMultimodalPayload
) -> SpanTracker:
    try:
        queue_try = ctx.queue.attempt_info().attempt_number
    except NotInTaskError:
        queue_try = 1
    return round_tracker(ctx, knowledge, payload.attempt, queue_try=queue_try)
