"""Stage multimodal: the document's stored images described for search (spec: «Веерная
рассылка мультимодальных задач по изображениям»). Each image a text chunk links gets one
image:multimodal task (local OCR unless turned off, and a caption with multimodal processing
on and a VLM configured: ``multimodal.image_task``); the stage's span stays running while
they work, and the image that leaves none pending queues the round's post-processing, which
ends the span.

The images are laid out on their text chunks and counted in one guarded write before the
first task is queued. An image whose enqueue fails is given back at once; when none could
be queued the round goes straight on to its post-processing itself, so it never waits for
tasks that do not exist.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from core.extensions import IMAGE_EXTENSIONS
from core.index_sides import index_sides
from core.payloads import ImageMultimodalPayload, KnowledgePostProcessPayload
from core.statuses import ChunkType, Stage
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.queue.base import QueueError, TaskQueue
from workers import task_specs
from workers.models.protocols import VisionModels
from workers.pipeline.multimodal.handoff import enqueue_post_process
from workers.pipeline.multimodal.images import RoundImage, round_images
from workers.pipeline.round.errors import Superseded
from workers.pipeline.round.runner import HandOff, Progress, Skip
from workers.pipeline.stages.chunking import chunk_id
from workers.pipeline.stages.work import DocumentWork

log = logging.getLogger(__name__)


class MultimodalStage:
    name = Stage.MULTIMODAL

    def __init__(self, images: ImageChunkRepository, queue: TaskQueue, vision: VisionModels):
        self._images = images
        self._queue = queue
        self._vision = vision

    def start(self, work: DocumentWork) -> Mapping[str, Any] | Skip:
        images = round_images(work.plan.chunks if work.plan is not None else [])
        if not images:
            return Skip("the document has no images")
        ocr, caption, vector = self._switches(work)
        if not (ocr or caption or vector):
            return Skip(
                "OCR of the pictures is off (image_processing.enable_ocr, or for a picture "
                "file the docreader read it), captions need multimodal processing and a VLM, "
                "and image vectors are off"
            )
        return {"images": len(images), "ocr": ocr, "caption": caption, "vector": vector}

    def run(self, work: DocumentWork, progress: Progress) -> Mapping[str, Any] | HandOff:
        knowledge = work.knowledge
        plan_chunks = work.plan.chunks if work.plan is not None else []
        images = round_images(plan_chunks)
        laid_out: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for image in images:
            laid_out[image.chunk_id].append({"url": image.url, "index": image.index})
        if not self._images.begin(knowledge.id, work.attempt, laid_out):
            raise Superseded(knowledge.id)
        # The span's outputs are written before any task may end it.
        progress({"images": len(images)}, now=True)
        switches = self._switches(work)
        # Child chunks are numbered after the text chunks, one number per image.
        first_child = max(c.index for c in plan_chunks) + 1
        unqueued = [
            image for image in images if not self._enqueue(work, image, first_child, switches)
        ]
        queued = len(images) - len(unqueued)
        remaining: int | None = None
        for image in unqueued:  # given back at once, each counted done with why
            remaining = self._images.finish_image(
                knowledge.id,
                work.attempt,
                image.chunk_id,
                image.url,
                {"error": "its task could not be queued"},
            )
            if remaining is None:
                raise Superseded(knowledge.id)
        if not queued:
            return {"images": len(images), "images_failed": len(images)}
        if remaining == 0:
            # The queued images finished before the unqueued ones were given back.
            enqueue_post_process(self._queue, _post_process(work))
        return HandOff(f"{queued} of {len(images)} image tasks queued")

    def _switches(self, work: DocumentWork) -> tuple[bool, bool, bool]:
        """Whether the images get OCR, captions and vectors. OCR is local and on unless the
        knowledge base turns it off — beyond the reference, which reads pictures only with
        multimodal processing on — so a picture's text is searchable with no model at all;
        a picture file's own text the docreader read by OCR already, into the text chunk.
        Captions need multimodal processing (the upload's choice, else the knowledge base's,
        kept on the row) and a VLM. Image vectors need the knowledge base's switch, dense vectors
        and an embedding model that embeds images (checked when the configuration is set)."""
        config = work.config
        ocr = config.image_ocr and (work.knowledge.file_type or "").lower() not in IMAGE_EXTENSIONS
        caption = (
            bool(work.knowledge.enable_multimodel)
            and config.image_caption
            and self._vision.vision(config.vlm) is not None
        )
        vector = (
            config.image_vector
            and config.embedding.accepts_images
            and index_sides(work.model_key, config).dense
        )
        return ocr, caption, vector

    def _enqueue(
        self,
        work: DocumentWork,
        image: RoundImage,
        first_child: int,
        switches: tuple[bool, bool, bool],
    ) -> bool:
        knowledge = work.knowledge
        ocr, caption, vector = switches
        child_index = first_child + image.index - 1
        payload = ImageMultimodalPayload(
            tenant_id=knowledge.tenant_id,
            knowledge_id=knowledge.id,
            knowledge_base_id=knowledge.knowledge_base_id,
            attempt=work.attempt,
            chunk_id=image.chunk_id,
            image_url=image.url,
            image_index=image.index,
            child_index=child_index,
            ocr_chunk_id=chunk_id(knowledge.id, work.attempt, ChunkType.IMAGE_OCR, child_index),
            caption_chunk_id=chunk_id(
                knowledge.id, work.attempt, ChunkType.IMAGE_CAPTION, child_index
            ),
            enable_ocr=ocr,
            enable_caption=caption,
            vector_chunk_id=chunk_id(
                knowledge.id, work.attempt, ChunkType.IMAGE_VECTOR, child_index
            ),
            enable_vector=vector,
        )
        try:
            self._queue.enqueue(task_specs.image_multimodal(payload))
        except QueueError as exc:
            log.warning(
                "enqueue of image %d of knowledge %s failed: %s", image.index, knowledge.id, exc
            )
            return False
        return True


def _post_process(work: DocumentWork) -> KnowledgePostProcessPayload:
    knowledge = work.knowledge
    return KnowledgePostProcessPayload(
        tenant_id=knowledge.tenant_id,
        knowledge_id=knowledge.id,
        knowledge_base_id=knowledge.knowledge_base_id,
        attempt=work.attempt,
    )
