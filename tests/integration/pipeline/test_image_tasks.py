"""The image tasks of a round on real parts (PostgreSQL and SQLite, milvus-lite, the lite
queue), with the docreader out of reach: a picture whose OCR keeps failing fails its step,
and once its last try is given up (the queue's dead letter) it counts as done with the
error, so the round's post-processing still runs and the knowledge completes; a task of a
round that moved on is dropped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.statuses import ParseStatus, SpanStatus
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.queue.lite import LiteTaskQueue
from tests.integration.pipeline.picture_round import round_with_one_picture
from tests.support.waiting import wait_until
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.docreader_client import DocReaderCallError
from workers.pipeline.multimodal.image_task import describe_image, image_failed


@pytest.fixture(scope="module")
def ctx(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerContext]:
    data_dir = tmp_path_factory.mktemp("image-tasks")
    settings = local_settings(database_url, data_dir)
    with worker_context(settings, install=True) as context:
        yield context


def _completed(ctx: WorkerContext, knowledge_id: str) -> bool:
    """Completed, and its root span closed (right after)."""
    row = ctx.knowledges.get(knowledge_id, None)
    spans = {s.name: s for s in ctx.spans.list(knowledge_id, 1, tenant_id=None)}
    return (
        row is not None
        and row.parse_status == ParseStatus.COMPLETED
        and spans["knowledge_processing"].status == SpanStatus.DONE
    )


def test_a_picture_given_up_on_still_lets_the_round_complete(ctx: WorkerContext) -> None:
    payload = round_with_one_picture(ctx)
    with pytest.raises(DocReaderCallError):  # the docreader is out of reach: retried
        describe_image(ctx, payload)
    step = ctx.spans.list(payload.knowledge_id, 1, tenant_id=None)
    failed = {s.name: s for s in step}["multimodal.image.1"]
    assert (failed.status, failed.error_code) == (SpanStatus.FAILED, "IMAGE_FAILED")
    row = ctx.knowledges.get(payload.knowledge_id, None)
    assert row is not None and row.parse_status == ParseStatus.PROCESSING

    image_failed(ctx, payload, "DocReaderCallError: UNAVAILABLE")  # the queue's dead letter
    assert isinstance(ctx.queue, LiteTaskQueue) and ctx.queue.join(timeout=60)
    wait_until(lambda: _completed(ctx, payload.knowledge_id), timeout=30)
    spans = {s.name: s for s in ctx.spans.list(payload.knowledge_id, 1, tenant_id=None)}
    assert spans["multimodal"].status == SpanStatus.DONE
    assert spans["multimodal"].output == {
        "images": 1,
        "images_failed": 1,
        "image_ocr_chunks": 0,
        "image_caption_chunks": 0,
    }
    assert spans["postprocess"].status == SpanStatus.SKIPPED
    assert spans["knowledge_processing"].status == SpanStatus.DONE
    parent = ctx.chunks.get_many([payload.chunk_id], tenant_id=None)[0]
    assert parent.image_info is not None
    (entry,) = parent.image_info["images"]
    assert entry["done"] and "UNAVAILABLE" in entry["error"]


def test_an_image_task_of_a_round_that_moved_on_is_dropped(ctx: WorkerContext) -> None:
    payload = round_with_one_picture(ctx)
    assert ctx.knowledges.begin_attempt(payload.knowledge_id, after_attempt=1) == 2
    describe_image(ctx, payload)  # no docreader call, no error: nothing to do
    spans = {s.name: s for s in ctx.spans.list(payload.knowledge_id, 1, tenant_id=None)}
    assert "multimodal.image.1" not in spans
    assert ImageChunkRepository(ctx.db).children(payload.knowledge_id, 1) == []
