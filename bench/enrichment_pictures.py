"""The images part of the enrichment benchmark: a round whose text links ``count`` stored
pictures, chunked and enabled, left where the multimodal stage takes it; and that stage
run for real, which lays the pictures out on their text chunks and queues one
image:multimodal task each (OCR off, captions from the knowledge base's VLM)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from core.effective_config import resolve
from storage.db.repositories.image_chunks import ImageChunkRepository
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.recall_pictures import picture_png
from workers.context import WorkerContext
from workers.docreader_client import DocumentImage
from workers.pipeline.reading.images import DocumentImages
from workers.pipeline.round.cleanup import RoundProducts
from workers.pipeline.round.runner import HandOff, run_stage
from workers.pipeline.round.spans import SpanTracker
from workers.pipeline.round.state import KnowledgeState
from workers.pipeline.stages.chunking import ChunkingStage
from workers.pipeline.stages.multimodal import MultimodalStage
from workers.pipeline.stages.work import DocumentWork

# The size the stage is told (the docreader's figure): above the icon threshold.
_WIDTH, _HEIGHT = 600, 110


@dataclass
class PictureRound:
    work: DocumentWork
    spans: SpanTracker


def picture_round(
    ctx: WorkerContext, embeddings: EmbeddingServer, vlm_url: str, count: int
) -> PictureRound:
    """A knowledge whose Markdown links ``count`` distinct stored PNGs, one a paragraph,
    chunked and enabled as the round leaves it before its multimodal stage; its knowledge
    base turns OCR off and captions on with a VLM at ``vlm_url``."""
    tenant = ctx.tenants.create_tenant(f"bench-{uuid.uuid4().hex[:6]}").id
    config = {
        "embedding": embeddings.kb_config(),
        "image_processing": {"enable_ocr": False, "enable_caption": True},
        "vlm": {"model": {"provider": "openai", "model": "captioner", "base_url": vlm_url}},
    }
    kb = ctx.knowledge_bases.create(
        tenant,
        f"bench-{uuid.uuid4().hex[:6]}",
        config=config,
        embedding_model_key=embeddings.model_key,
    )
    row = ctx.knowledges.create(
        tenant_id=tenant,
        knowledge_base_id=kb.id,
        type="file",
        title="harbour.docx",
        file_name="harbour.docx",
        file_type="docx",
        parse_status="processing",
        enable_status="disabled",
        attempt=1,
        enable_multimodel=True,
    )
    images = DocumentImages(ctx, row)
    paragraphs = []
    for n in range(1, count + 1):
        png = picture_png((f"crate {n} of salt",))
        images.add(DocumentImage(f"image-{n}.png", png, "image/png", _WIDTH, _HEIGHT, False, 1))
        paragraphs.append(f"Figure {n}: the crane at berth {n}.\n\n![figure {n}](image-{n}.png)")
    stored = images.finish("\n\n".join(paragraphs))
    assert len(stored.stored) == count, "a picture was dropped or merged"
    spans = SpanTracker(ctx.spans, ctx.publisher, tenant_id=tenant, knowledge_id=row.id, attempt=1)
    spans.open({"file_name": row.file_name})
    work = DocumentWork(
        row, 1, resolve(config, None), kb.embedding_model_key, markdown=stored.markdown
    )
    products = RoundProducts(ctx.index_checkpoints, ctx.chunks, ctx.index, ctx.graph)
    chunking = ChunkingStage(ctx.knowledges, ctx.chunks, ctx.index_checkpoints, products)
    run_stage(spans, chunking, work)
    KnowledgeState(ctx, row.id, 1).enable()
    return PictureRound(work, spans)


def queue_image_tasks(ctx: WorkerContext, picture: PictureRound) -> None:
    """The multimodal stage, as the round runs it: every picture's task queued."""
    stage = MultimodalStage(ImageChunkRepository(ctx.db), ctx.queue, ctx.models)
    handed_off = run_stage(picture.spans, stage, picture.work)
    assert isinstance(handed_off, HandOff), handed_off
