"""Queue entry points: plain functions of a payload dict. The queue adapter (RQ or the lite
executor) is the only thing that knows how they are run; these only rebuild the typed
payload and hand it to the pipeline."""

from __future__ import annotations

from typing import Any

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
from workers.clone.faq_clone import clone_faq, clone_faq_failed
from workers.clone.knowledge_clone import clone_failed, clone_knowledge
from workers.clone.plan import plan_clone, plan_failed
from workers.clone.removal import delete_batch, delete_batch_failed
from workers.context import current_context
from workers.enrichment.auto_tags import STEP_SPAN as AUTO_TAG_STEP
from workers.enrichment.auto_tags import auto_tag_knowledge as link_picked_tags
from workers.enrichment.auto_tags import tracker_of
from workers.enrichment.graph_extract import GRAPH_EXTRACT_FAILED
from workers.enrichment.graph_extract import end_failed as end_graph_failed
from workers.enrichment.graph_extract import extract_graph as write_chunk_graph
from workers.enrichment.graph_refresh import refresh_chunk_graph as rewrite_chunk_graph
from workers.enrichment.kb_profile import refresh_profile
from workers.enrichment.questions import QUESTIONS_FAILED, end_batch_failed
from workers.enrichment.questions import generate_questions as write_question_batch
from workers.enrichment.summary import SUMMARY_FAILED, end_failed
from workers.enrichment.summary import summarize_knowledge as write_knowledge_summary
from workers.enrichment.summary_refresh import refresh_failed
from workers.enrichment.summary_refresh import refresh_summary as write_summary_again
from workers.enrichment.wiki.ingest import ingest_failed, ingest_wiki
from workers.enrichment.wiki.retract import rewrite_pages
from workers.faq_import.entry_store import LayerEntryStore
from workers.faq_import.runner import import_failed, run_import
from workers.lifecycle.batches import delete_listed, reparse_batch
from workers.lifecycle.move.job import give_up, run_move
from workers.pipeline.after_images import post_process
from workers.pipeline.data_table import summarize_data_tables
from workers.pipeline.document import process_document as run_document_pipeline
from workers.pipeline.multimodal.image_task import describe_image, image_failed
from workers.pipeline.round.failure import mark_attempt_failed


def process_document(payload: dict[str, Any]) -> None:
    run_document_pipeline(current_context(), DocumentProcessPayload.from_dict(payload))


def on_document_process_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback: runs once, after the last attempt crashed or timed out."""
    mark_attempt_failed(current_context(), DocumentProcessPayload.from_dict(payload), error)


def image_multimodal(payload: dict[str, Any]) -> None:
    """image:multimodal (multimodal queue)."""
    describe_image(current_context(), ImageMultimodalPayload.from_dict(payload))


def on_image_multimodal_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback: the image counts as done (failed), so the round goes on."""
    image_failed(current_context(), ImageMultimodalPayload.from_dict(payload), error)


def knowledge_post_process(payload: dict[str, Any]) -> None:
    """knowledge:post_process (postprocess queue)."""
    post_process(current_context(), KnowledgePostProcessPayload.from_dict(payload))


def data_table_summary(payload: dict[str, Any]) -> None:
    """datatable:summary (summary queue)."""
    summarize_data_tables(current_context(), DataTableSummaryPayload.from_dict(payload))


def summarize_knowledge(payload: dict[str, Any]) -> None:
    """knowledge:summary (summary queue)."""
    write_knowledge_summary(current_context(), SummaryPayload.from_dict(payload))


def on_summary_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:summary: its last try crashed or timed out."""
    ctx, summary = current_context(), SummaryPayload.from_dict(payload)
    knowledge = ctx.knowledges.get(summary.knowledge_id, None)
    if knowledge is not None:
        end_failed(ctx, knowledge, summary.attempt, SUMMARY_FAILED, error)


def auto_tag_knowledge(payload: dict[str, Any]) -> None:
    """knowledge:auto_tag (summary queue)."""
    link_picked_tags(current_context(), AutoTagPayload.from_dict(payload))


def on_auto_tag_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:auto_tag: its last try crashed or timed out; the
    step says so (the document never waited for it)."""
    ctx, task = current_context(), AutoTagPayload.from_dict(payload)
    knowledge = ctx.knowledges.get(task.knowledge_id, None)
    if knowledge is not None and knowledge.attempt == task.attempt:
        tracker_of(ctx, knowledge, task.attempt).fail(AUTO_TAG_STEP, "AUTO_TAG_FAILED", error)


def kb_profile(payload: dict[str, Any]) -> None:
    """kb:profile (summary queue)."""
    refresh_profile(current_context(), KnowledgeBaseProfilePayload.from_dict(payload))


def refresh_summary(payload: dict[str, Any]) -> None:
    """knowledge:summary_refresh (summary queue)."""
    write_summary_again(current_context(), SummaryRefreshPayload.from_dict(payload))


def on_summary_refresh_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:summary_refresh: its last try crashed or timed out."""
    refresh_failed(current_context(), SummaryRefreshPayload.from_dict(payload), error)


def batch_reparse(payload: dict[str, Any]) -> None:
    """knowledge:batch_reparse (maintenance queue)."""
    reparse_batch(current_context(), BatchReparsePayload.from_dict(payload))


def list_delete(payload: dict[str, Any]) -> None:
    """knowledge:list_delete (maintenance queue)."""
    delete_listed(current_context(), KnowledgeListDeletePayload.from_dict(payload))


def generate_questions(payload: dict[str, Any]) -> None:
    """knowledge:question (question queue)."""
    write_question_batch(current_context(), QuestionBatchPayload.from_dict(payload))


def on_question_batch_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:question: its last try crashed or timed out."""
    ctx, batch = current_context(), QuestionBatchPayload.from_dict(payload)
    knowledge = ctx.knowledges.get(batch.knowledge_id, None)
    if knowledge is not None:
        end_batch_failed(ctx, knowledge, batch, QUESTIONS_FAILED, error)


def extract_graph(payload: dict[str, Any]) -> None:
    """knowledge:graph_extract (graph queue)."""
    write_chunk_graph(current_context(), GraphExtractPayload.from_dict(payload))


def on_graph_extract_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:graph_extract: its last try crashed or timed out."""
    ctx, task = current_context(), GraphExtractPayload.from_dict(payload)
    knowledge = ctx.knowledges.get(task.knowledge_id, None)
    if knowledge is not None:
        end_graph_failed(ctx, knowledge, task, GRAPH_EXTRACT_FAILED, error)


def refresh_chunk_graph(payload: dict[str, Any]) -> None:
    """knowledge:graph_refresh (graph queue)."""
    rewrite_chunk_graph(current_context(), GraphRefreshPayload.from_dict(payload))


def wiki_ingest(payload: dict[str, Any]) -> None:
    """wiki:ingest (wiki queue)."""
    ingest_wiki(current_context(), WikiIngestPayload.from_dict(payload))


def on_wiki_ingest_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of wiki:ingest: its last try crashed or timed out."""
    ingest_failed(current_context(), WikiIngestPayload.from_dict(payload), error)


def wiki_retract(payload: dict[str, Any]) -> None:
    """wiki:retract (wiki queue)."""
    rewrite_pages(current_context(), WikiRetractPayload.from_dict(payload))


# -- knowledge base clone (workers.clone) ---------------------------------------------------


def kb_clone(payload: dict[str, Any]) -> None:
    """kb:clone (maintenance queue): plan the job's difference, queue its items."""
    plan_clone(current_context(), KbClonePlanPayload.from_dict(payload))


def on_kb_clone_failed(payload: dict[str, Any], error: str) -> None:
    plan_failed(current_context(), KbClonePlanPayload.from_dict(payload), error)


def kb_clone_knowledge(payload: dict[str, Any]) -> None:
    """kb:clone_knowledge (maintenance queue): one source knowledge cloned."""
    clone_knowledge(current_context(), KbCloneKnowledgePayload.from_dict(payload))


def on_kb_clone_knowledge_failed(payload: dict[str, Any], error: str) -> None:
    clone_failed(current_context(), KbCloneKnowledgePayload.from_dict(payload), error)


def kb_clone_delete(payload: dict[str, Any]) -> None:
    """kb:clone_delete (maintenance queue): one batch of clones whose source is gone."""
    delete_batch(current_context(), KbCloneDeletePayload.from_dict(payload))


def on_kb_clone_delete_failed(payload: dict[str, Any], error: str) -> None:
    delete_batch_failed(current_context(), KbCloneDeletePayload.from_dict(payload), error)


def kb_clone_faq(payload: dict[str, Any]) -> None:
    """kb:clone_faq (maintenance queue): an FAQ clone job's entry batches, in order."""
    clone_faq(current_context(), KbCloneFaqPayload.from_dict(payload))


def on_kb_clone_faq_failed(payload: dict[str, Any], error: str) -> None:
    clone_faq_failed(current_context(), KbCloneFaqPayload.from_dict(payload), error)


def move_knowledge(payload: dict[str, Any]) -> None:
    """knowledge:move (maintenance queue)."""
    run_move(current_context(), KnowledgeMovePayload.from_dict(payload))


def on_knowledge_move_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of knowledge:move: its last try crashed or timed out."""
    give_up(current_context(), KnowledgeMovePayload.from_dict(payload), error)


def faq_import(payload: dict[str, Any]) -> None:
    """faq:import (maintenance queue)."""
    ctx, task = current_context(), FaqImportPayload.from_dict(payload)
    kb = ctx.knowledge_bases.get(None, task.knowledge_base_id)
    if kb is not None:  # a deleted knowledge base took its import job with it
        run_import(ctx, task, LayerEntryStore(ctx, kb))


def on_faq_import_failed(payload: dict[str, Any], error: str) -> None:
    """Dead-letter callback of faq:import: its last attempt crashed or timed out."""
    import_failed(current_context(), FaqImportPayload.from_dict(payload), error)
