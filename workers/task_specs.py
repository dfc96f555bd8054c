"""How each task is queued: queue, retries, time limit, identity (spec: task options)."""

from __future__ import annotations

import uuid

from core.payloads import (
    AutoTagPayload,
    BatchReparsePayload,
    DataTableSummaryPayload,
    DocumentProcessPayload,
    FaqImportPayload,
    GraphExtractPayload,
    GraphRefreshPayload,
    ImageMultimodalPayload,
    KbCloneDeletePayload,
    KbCloneFaqPayload,
    KbCloneKnowledgePayload,
    KbClonePlanPayload,
    KnowledgeBaseProfilePayload,
    KnowledgeListDeletePayload,
    KnowledgeMovePayload,
    KnowledgePostProcessPayload,
    QuestionBatchPayload,
    SummaryPayload,
    SummaryRefreshPayload,
    WikiIngestPayload,
    WikiRetractPayload,
)
from storage.queue.base import QueueName, TaskSpec
from workers.settings import Settings

# Maintenance batches: retried (each is idempotent), and bounded well below a document's.
BATCH_RETRIES = 3
BATCH_TIMEOUT_S = 3600
# datatable:summary: profiling is quick; the time goes to embedding the column chunks.
DATA_TABLE_RETRIES = 2
DATA_TABLE_TIMEOUT_S = 1800
# knowledge:summary: one model call (its own retries inside) and one chunk embedded.
SUMMARY_RETRIES = 2
SUMMARY_TIMEOUT_S = 900
# knowledge:auto_tag and kb:profile: one model call each (its own retries inside).
AUTO_TAG_RETRIES = 2
AUTO_TAG_TIMEOUT_S = 600
PROFILE_RETRIES = 2
PROFILE_TIMEOUT_S = 900
# kb:profile's window: the requests of one knowledge base within it share one task.
PROFILE_WINDOW_S = 30

# knowledge:question: up to 20 model calls (concurrent, each with its own retries) and the
# embedding of their questions; calls wait their turn behind other batches of the model.
QUESTION_RETRIES = 2
QUESTION_TIMEOUT_S = 1800
# knowledge:graph_extract: one chunk's model call (its own retries inside, and the asks
# again of an answer that is not the JSON asked for) and one graph write.
GRAPH_RETRIES = 2
GRAPH_TIMEOUT_S = 900
# image:multimodal: one image's OCR (or a VLM call) and the embedding of its two chunks.
IMAGE_RETRIES = 3
IMAGE_TIMEOUT_S = 600
# wiki:ingest: a model call per document and one per page it adds to, for every document
# of the batch; wiki:retract: one call per page rebuilt.
WIKI_RETRIES = 2
WIKI_TIMEOUT_S = 3600
# faq:import (spec: TypeFAQImport): 1 + 5 attempts (a dry run, which writes nothing, 1 + 3),
# each within 2 hours; every attempt resumes from the rows already counted.
FAQ_IMPORT_RETRIES = 5
FAQ_IMPORT_DRY_RUN_RETRIES = 3
FAQ_IMPORT_TIMEOUT_S = 7200
# knowledge:post_process: database writes and enqueues only.
POST_PROCESS_RETRIES = 3
POST_PROCESS_TIMEOUT_S = 300


def document_process(
    settings: Settings, payload: DocumentProcessPayload, *, at_front: bool = False
) -> TaskSpec:
    """``at_front``: a round re-enqueued by housekeeping, which has waited its turn already."""
    return TaskSpec(
        handler="workers.tasks.process_document",
        payload=payload.to_dict(),
        queue=QueueName.DEFAULT,
        job_id=f"document-process-{payload.knowledge_id}-{payload.attempt}",
        max_retries=settings.queue.document_process_retries,
        retry_intervals=settings.queue.document_process_retry_delays_s,
        timeout_s=settings.queue.document_process_timeout_s,
        on_final_failure="workers.tasks.on_document_process_failed",
        group=payload.knowledge_id,
        at_front=at_front,
    )


def data_table_summary(payload: DataTableSummaryPayload) -> TaskSpec:
    """On the summary queue, in the knowledge's group, so cancelling or reparsing an
    in-flight round also removes its queued table summary."""
    return TaskSpec(
        handler="workers.tasks.data_table_summary",
        payload=payload.to_dict(),
        queue=QueueName.SUMMARY,
        job_id=f"datatable-summary-{payload.knowledge_id}-{payload.attempt}",
        max_retries=DATA_TABLE_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=DATA_TABLE_TIMEOUT_S,
        group=payload.knowledge_id,
    )


def summary(payload: SummaryPayload) -> TaskSpec:
    """On the summary queue, in the knowledge's group (a cancel or reparse removes it); a
    try whose model is unavailable is retried, the last one's failure ends the subtask."""
    return TaskSpec(
        handler="workers.tasks.summarize_knowledge",
        payload=payload.to_dict(),
        queue=QueueName.SUMMARY,
        job_id=f"knowledge-summary-{payload.knowledge_id}-{payload.attempt}",
        max_retries=SUMMARY_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=SUMMARY_TIMEOUT_S,
        on_final_failure="workers.tasks.on_summary_failed",
        group=payload.knowledge_id,
    )


def auto_tag(payload: AutoTagPayload) -> TaskSpec:
    """On the summary queue, in the knowledge's group (a cancel or reparse removes it)."""
    return TaskSpec(
        handler="workers.tasks.auto_tag_knowledge",
        payload=payload.to_dict(),
        queue=QueueName.SUMMARY,
        job_id=f"knowledge-autotag-{payload.knowledge_id}-{payload.attempt}",
        max_retries=AUTO_TAG_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=AUTO_TAG_TIMEOUT_S,
        on_final_failure="workers.tasks.on_auto_tag_failed",
        group=payload.knowledge_id,
    )


def question_batch(payload: QuestionBatchPayload) -> TaskSpec:
    """One batch of a round's question subtasks, on the question queue in the knowledge's
    group (a cancel or reparse removes it); a try whose model is unavailable is retried, the
    last one ends the batch with what it has."""
    return TaskSpec(
        handler="workers.tasks.generate_questions",
        payload=payload.to_dict(),
        queue=QueueName.QUESTION,
        job_id=(
            f"knowledge-question-{payload.knowledge_id}-{payload.attempt}-{payload.batch_index}"
        ),
        max_retries=QUESTION_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=QUESTION_TIMEOUT_S,
        on_final_failure="workers.tasks.on_question_batch_failed",
        group=payload.knowledge_id,
    )


def graph_extract(payload: GraphExtractPayload) -> TaskSpec:
    """One chunk of a round's graph subtasks, on the graph queue in the knowledge's group (a
    cancel or reparse removes it); a try whose model is unavailable is retried, the last
    one ends the subtask with the error."""
    return TaskSpec(
        handler="workers.tasks.extract_graph",
        payload=payload.to_dict(),
        queue=QueueName.GRAPH,
        job_id=f"knowledge-graph-{payload.knowledge_id}-{payload.attempt}-{payload.index}",
        max_retries=GRAPH_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=GRAPH_TIMEOUT_S,
        on_final_failure="workers.tasks.on_graph_extract_failed",
        group=payload.knowledge_id,
    )


def graph_refresh(payload: GraphRefreshPayload) -> TaskSpec:
    """One per chunk and content revision (a duplicate of one waiting is a no-op), on the
    graph queue in the knowledge's group (a reparse or delete removes it); a model that is
    unavailable is retried, the last try gives up with a log line."""
    return TaskSpec(
        handler="workers.tasks.refresh_chunk_graph",
        payload=payload.to_dict(),
        queue=QueueName.GRAPH,
        job_id=f"knowledge-graph-refresh-{payload.chunk_id}-{payload.content_revision}",
        max_retries=GRAPH_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=GRAPH_TIMEOUT_S,
        group=payload.knowledge_id,
    )


def summary_refresh(payload: SummaryRefreshPayload) -> TaskSpec:
    """One per knowledge and sequence: edits while it waits queue the same id (one task),
    an edit once it began queues the next sequence (one more). In the knowledge's group
    (a reparse or delete removes it); a model that is unavailable is retried, the last
    try's failure fails the refresh (the summary written last stays)."""
    return TaskSpec(
        handler="workers.tasks.refresh_summary",
        payload=payload.to_dict(),
        queue=QueueName.SUMMARY,
        job_id=f"knowledge-summary-refresh-{payload.knowledge_id}-{payload.sequence}",
        max_retries=SUMMARY_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=SUMMARY_TIMEOUT_S,
        on_final_failure="workers.tasks.on_summary_refresh_failed",
        group=payload.knowledge_id,
    )


def kb_profile(payload: KnowledgeBaseProfilePayload, now_s: float) -> TaskSpec:
    """On the summary queue, its id bucketed by knowledge base and ``PROFILE_WINDOW_S``
    window of ``now_s`` (epoch seconds): the requests of a batch of uploads or deletes
    while one is queued or running join it. An on-demand one has its own bucket, so it is
    never folded into an automatic one that would skip an unchanged aggregate."""
    window = int(now_s // PROFILE_WINDOW_S)
    kind = "-manual" if payload.force else ""
    return TaskSpec(
        handler="workers.tasks.kb_profile",
        payload=payload.to_dict(),
        queue=QueueName.SUMMARY,
        job_id=f"kb-profile-{payload.knowledge_base_id}-{window}{kind}",
        max_retries=PROFILE_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=PROFILE_TIMEOUT_S,
    )


def wiki_ingest(payload: WikiIngestPayload, window: int) -> TaskSpec:
    """On the wiki queue, its id bucketed by knowledge base and debounce ``window`` (its
    number since the epoch): the rounds of a batch of uploads queued within it join it.
    Not in a knowledge's group: it serves many; a round's stop is its attempt check."""
    return TaskSpec(
        handler="workers.tasks.wiki_ingest",
        payload=payload.to_dict(),
        queue=QueueName.WIKI,
        job_id=f"wiki-ingest-{payload.knowledge_base_id}-{window}",
        max_retries=WIKI_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=WIKI_TIMEOUT_S,
        on_final_failure="workers.tasks.on_wiki_ingest_failed",
    )


def wiki_retract(payload: WikiRetractPayload) -> TaskSpec:
    """On the wiki queue, one per retract and knowledge base (its pages are consistent
    already: this only writes their text anew)."""
    return TaskSpec(
        handler="workers.tasks.wiki_retract",
        payload=payload.to_dict(),
        queue=QueueName.WIKI,
        job_id=f"wiki-retract-{payload.knowledge_base_id}-{uuid.uuid4().hex}",
        max_retries=WIKI_RETRIES,
        retry_intervals=(10, 60),
        timeout_s=WIKI_TIMEOUT_S,
    )


def image_multimodal(payload: ImageMultimodalPayload) -> TaskSpec:
    """One image of a round, in the knowledge's group (a cancel or reparse removes it)."""
    return TaskSpec(
        handler="workers.tasks.image_multimodal",
        payload=payload.to_dict(),
        queue=QueueName.MULTIMODAL,
        job_id=f"image-multimodal-{payload.knowledge_id}-{payload.attempt}-{payload.image_index}",
        max_retries=IMAGE_RETRIES,
        retry_intervals=(5, 30, 120),
        timeout_s=IMAGE_TIMEOUT_S,
        on_final_failure="workers.tasks.on_image_multimodal_failed",
        group=payload.knowledge_id,
    )


def knowledge_post_process(payload: KnowledgePostProcessPayload) -> TaskSpec:
    """The round's post-processing once its images are done; its last failure fails the
    round, as a document:process's does."""
    return TaskSpec(
        handler="workers.tasks.knowledge_post_process",
        payload=payload.to_dict(),
        queue=QueueName.POSTPROCESS,
        job_id=f"knowledge-postprocess-{payload.knowledge_id}-{payload.attempt}",
        max_retries=POST_PROCESS_RETRIES,
        retry_intervals=(1, 10, 60),
        timeout_s=POST_PROCESS_TIMEOUT_S,
        on_final_failure="workers.tasks.on_document_process_failed",
        group=payload.knowledge_id,
    )


def faq_import(payload: FaqImportPayload) -> TaskSpec:
    """On the maintenance queue, one per import job (its group, so it can be found and
    cancelled); the last attempt's failure fails the job with its reason."""
    return TaskSpec(
        handler="workers.tasks.faq_import",
        payload=payload.to_dict(),
        queue=QueueName.LOW,
        job_id=f"faq-import-{payload.job_id}",
        max_retries=FAQ_IMPORT_DRY_RUN_RETRIES if payload.dry_run else FAQ_IMPORT_RETRIES,
        retry_intervals=(5, 30, 120),
        timeout_s=FAQ_IMPORT_TIMEOUT_S,
        on_final_failure="workers.tasks.on_faq_import_failed",
        group=faq_import_group(payload.job_id),
    )


def faq_import_group(job_id: str) -> str:
    return f"faq-import-{job_id}"


def batch_reparse(payload: BatchReparsePayload) -> TaskSpec:
    return _maintenance("workers.tasks.batch_reparse", "knowledge-batch-reparse", payload.to_dict())


def knowledge_list_delete(payload: KnowledgeListDeletePayload) -> TaskSpec:
    return _maintenance("workers.tasks.list_delete", "knowledge-list-delete", payload.to_dict())


def knowledge_move(payload: KnowledgeMovePayload) -> TaskSpec:
    """The job's id names the task (one task per job); its last failure fails the job and
    puts every knowledge wholly back in the source or wholly in the target."""
    return TaskSpec(
        handler="workers.tasks.move_knowledge",
        payload=payload.to_dict(),
        queue=QueueName.LOW,
        job_id=f"knowledge-move-{payload.job_id}",
        max_retries=BATCH_RETRIES,
        retry_intervals=(1, 5, 30),
        timeout_s=BATCH_TIMEOUT_S,
        on_final_failure="workers.tasks.on_knowledge_move_failed",
        group=knowledge_move_group(payload.job_id),
    )


def knowledge_move_group(job_id: str) -> str:
    return f"knowledge-move-{job_id}"


def _maintenance(handler: str, name: str, payload: dict[str, object]) -> TaskSpec:
    """A batch on the maintenance queue, its own group so it can be found and cancelled."""
    job_id = f"{name}-{uuid.uuid4().hex}"
    return TaskSpec(
        handler=handler,
        payload=payload,
        queue=QueueName.LOW,
        job_id=job_id,
        max_retries=BATCH_RETRIES,
        retry_intervals=(1, 5, 30),
        timeout_s=BATCH_TIMEOUT_S,
        group=job_id,
    )


# -- knowledge base clone (workers.clone) ---------------------------------------------------
# Database writes, file copies and index row copies; a killed or failed try starts its
# item over (a half-made clone is deleted first).
CLONE_RETRIES = 3


def _clone_task(
    settings: Settings, handler: str, job_id: str, payload: dict[str, object], failed: str
) -> TaskSpec:
    """On the maintenance queue, grouped by the clone job; its id names the item, so
    queueing an item waiting or running already is a no-op."""
    return TaskSpec(
        handler=f"workers.tasks.{handler}",
        payload=payload,
        queue=QueueName.LOW,
        job_id=job_id,
        max_retries=CLONE_RETRIES,
        retry_intervals=(1, 5, 30),
        timeout_s=settings.queue.kb_clone_timeout_s,
        on_final_failure=f"workers.tasks.{failed}",
        group=kb_clone_group(str(payload["job_id"])),
    )


def kb_clone_group(job_id: str) -> str:
    """Every task of one clone job: its plan and its items."""
    return f"kb-clone-{job_id}"


def kb_clone(settings: Settings, payload: KbClonePlanPayload) -> TaskSpec:
    return _clone_task(
        settings, "kb_clone", f"kb-clone-{payload.job_id}", payload.to_dict(), "on_kb_clone_failed"
    )


def kb_clone_knowledge(settings: Settings, payload: KbCloneKnowledgePayload) -> TaskSpec:
    job_id = f"kb-clone-{payload.job_id}-k-{payload.source_knowledge_id}"
    return _clone_task(
        settings, "kb_clone_knowledge", job_id, payload.to_dict(), "on_kb_clone_knowledge_failed"
    )


def kb_clone_delete(settings: Settings, payload: KbCloneDeletePayload) -> TaskSpec:
    job_id = f"kb-clone-{payload.job_id}-d-{payload.batch_index}"
    return _clone_task(
        settings, "kb_clone_delete", job_id, payload.to_dict(), "on_kb_clone_delete_failed"
    )


def kb_clone_faq(settings: Settings, payload: KbCloneFaqPayload) -> TaskSpec:
    """The entries of an FAQ clone job, batch by batch (workers.clone.faq_clone); each part
    its own id, so the next part can be queued while this one still runs."""
    job_id = f"kb-clone-{payload.job_id}-faq-{payload.part}"
    return _clone_task(
        settings, "kb_clone_faq", job_id, payload.to_dict(), "on_kb_clone_faq_failed"
    )
