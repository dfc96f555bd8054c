"""A round whose text links one stored picture, laid out as the multimodal stage leaves it,
for the image-task tests."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from core.effective_config import embedding_model_of, resolve
from core.payloads import ImageMultimodalPayload
from storage.db.repositories.image_chunks import ImageChunkRepository
from tests.support.recall_pictures import picture_png
from workers.context import WorkerContext
from workers.docreader_client import DocumentImage
from workers.pipeline.multimodal.images import round_images
from workers.pipeline.reading.images import DocumentImages
from workers.pipeline.round.cleanup import RoundProducts
from workers.pipeline.round.runner import run_stage
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.stages.chunking import ChunkingStage, chunk_id
from workers.pipeline.stages.work import DocumentWork

PICTURE = picture_png(("seventeen walruses",))


def round_with_one_picture(
    ctx: WorkerContext,
    config: Mapping[str, Any] | None = None,
    *,
    enable_ocr: bool = True,
    enable_vector: bool = False,
) -> ImageMultimodalPayload:
    """A round whose text links one stored picture: chunked, enabled, its picture laid out
    as the multimodal stage does; the image task's payload, as the stage queues it. The
    knowledge base has ``config`` (the server's defaults if None)."""
    config = config or {}
    model_key = embedding_model_of(config).key
    tenant = ctx.tenants.create_tenant(f"t-{uuid.uuid4().hex[:6]}").id
    kb = ctx.knowledge_bases.create(
        tenant,
        f"kb-{uuid.uuid4().hex[:6]}",
        description="",
        type="document",
        config=dict(config),
        embedding_model_key=model_key,
        storage_backend_id="",
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="file",
        title="notes.docx",
        file_name="notes.docx",
        file_type="docx",
        parse_status="processing",
        enable_status="disabled",
        attempt=1,
        enable_multimodel=True,
    )
    images = DocumentImages(ctx, row)
    images.add(DocumentImage("image-1.png", PICTURE, "image/png", 600, 180, False, 1))
    stored = images.finish("Garden notes.\n\n![pic](image-1.png)\n\nMore notes.")
    tracker = SpanTracker(
        ctx.spans, ctx.publisher, tenant_id=tenant, knowledge_id=row.id, attempt=1
    )
    tracker.open({"file_name": "notes.docx"})
    work = DocumentWork(row, 1, resolve(config, None), model_key, markdown=stored.markdown)
    products = RoundProducts(ctx.index_checkpoints, ctx.chunks, ctx.index, ctx.graph)
    chunking = ChunkingStage(ctx.knowledges, ctx.chunks, ctx.index_checkpoints, products)
    run_stage(tracker, chunking, work)
    KnowledgeState(ctx, row.id, 1).enable()
    assert work.plan is not None
    (image,) = round_images(work.plan.chunks)
    entry = {"url": image.url, "index": image.index}
    assert ImageChunkRepository(ctx.db).begin(row.id, 1, {image.chunk_id: [entry]})
    tracker.begin("multimodal", {"images": 1})
    child = len(work.plan.chunks)
    return ImageMultimodalPayload(
        tenant_id=tenant,
        knowledge_id=row.id,
        knowledge_base_id=kb.id,
        attempt=1,
        chunk_id=image.chunk_id,
        image_url=image.url,
        image_index=1,
        child_index=child,
        ocr_chunk_id=chunk_id(row.id, 1, "image_ocr", child),
        caption_chunk_id=chunk_id(row.id, 1, "image_caption", child),
        enable_ocr=enable_ocr,
        vector_chunk_id=chunk_id(row.id, 1, "image_vector", child),
        enable_vector=enable_vector,
    )
