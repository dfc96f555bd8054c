"""A picture's image vector on real parts (PostgreSQL and SQLite, milvus-lite) against a
real embeddings endpoint that takes pictures: the image task embeds the stored picture
itself into an ``image_vector`` child of its text chunk, indexed with that vector, so a
query embedded near the picture finds it; a picture the endpoint refuses only loses its
vector — the image still counts done and its step says why."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from core.payloads import ImageMultimodalPayload
from core.statuses import ChunkType, SpanStatus
from tests.integration.pipeline.picture_round import PICTURE, round_with_one_picture
from tests.support.openai_embeddings import EmbeddingServer, Reply, vector
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.pipeline.multimodal.image_task import describe_image
from workers.settings_groups import OutboundSettings

# Where the endpoint puts the picture in its text space: what a query for it says.
PICTURE_MEANS = "a colony of walruses resting on the ice"


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    settings = local_settings(
        database_url,
        tmp_path_factory.mktemp("image-vectors"),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings, install=True) as context:
        yield context


@pytest.fixture
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(image_text=lambda data: PICTURE_MEANS if data == PICTURE else "?") as s:
        yield s


def config(server: EmbeddingServer) -> dict[str, Any]:
    return {
        "embedding": {**server.kb_config(), "accepts_images": True},
        "image_processing": {"image_vector_enabled": True},
    }


def picture_round(ctx: WorkerContext, server: EmbeddingServer) -> ImageMultimodalPayload:
    # OCR off: the docreader is not running here, and the vector needs none.
    return round_with_one_picture(ctx, config(server), enable_ocr=False, enable_vector=True)


def normalised(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def step_of(ctx: WorkerContext, payload: ImageMultimodalPayload) -> Any:
    spans = {s.name: s for s in ctx.spans.list(payload.knowledge_id, 1, tenant_id=None)}
    return spans["multimodal.image.1"]


def test_a_picture_is_embedded_as_its_image_vector_child(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    payload = picture_round(ctx, embeddings)
    describe_image(ctx, payload)

    [request] = [r for r in embeddings.log() if r.images]
    assert request.images == (PICTURE,) and request.inputs == ("<image/png image>",)
    [child] = ctx.chunks.get_many([payload.vector_chunk_id], tenant_id=None)
    assert child.chunk_type == ChunkType.IMAGE_VECTOR
    assert child.parent_chunk_id == payload.chunk_id
    assert child.meta == {"image_url": payload.image_url, "image_index": 1}
    hits = ctx.index.search_dense(
        embeddings.model_key,
        normalised(vector(PICTURE_MEANS)),
        tenant_ids=[payload.tenant_id],
        knowledge_base_ids=[payload.knowledge_base_id],
        top_k=1,
    )
    assert [(h.chunk_id, round(h.score, 4)) for h in hits] == [(payload.vector_chunk_id, 1.0)]
    step = step_of(ctx, payload)
    assert step.status == SpanStatus.DONE
    assert step.input["vector"] is True and step.output["chunks"] == 1


def test_a_refused_picture_loses_only_its_vector(
    ctx: WorkerContext, embeddings: EmbeddingServer
) -> None:
    embeddings.plan(Reply(400, '{"error": {"message": "images are not supported"}}'))
    payload = picture_round(ctx, embeddings)
    describe_image(ctx, payload)

    assert ctx.chunks.get_many([payload.vector_chunk_id], tenant_id=None) == []
    assert ctx.index.ids_for_knowledge(embeddings.model_key, payload.knowledge_id) == []
    step = step_of(ctx, payload)
    assert step.status == SpanStatus.DONE
    assert "answered HTTP 400" in step.output["vector_error"]
    [parent] = ctx.chunks.get_many([payload.chunk_id], tenant_id=None)
    assert parent.image_info is not None
    [entry] = parent.image_info["images"]
    assert entry["done"]
