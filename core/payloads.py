"""Typed task payloads. Queues carry them as plain dicts; handlers rebuild them here."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, TypeVar

from core.errors import SluiceError

T = TypeVar("T", bound="Payload")


class PayloadError(SluiceError, ValueError):
    """A task payload is missing fields or has fields of the wrong type."""


@dataclass(frozen=True)
class Payload:
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls: type[T], raw: dict[str, Any]) -> T:
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in raw.items() if k in known})
        except TypeError as exc:
            raise PayloadError(f"bad {cls.__name__}: {exc}") from exc


@dataclass(frozen=True)
class DocumentProcessPayload(Payload):
    """document:process — parse, chunk, embed and index one knowledge for one attempt."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int
    file_path: str = ""
    file_name: str = ""
    file_type: str = ""
    enable_multimodel: bool = False


@dataclass(frozen=True)
class BatchReparsePayload(Payload):
    """knowledge:batch_reparse — a new round for each knowledge still at the attempt it had
    when the batch was accepted (so a retried batch never restarts one twice)."""

    knowledge_ids: list[str]
    attempts: list[int]


@dataclass(frozen=True)
class KnowledgeListDeletePayload(Payload):
    """knowledge:list_delete — the delete chain for knowledges already marked deleting."""

    knowledge_ids: list[str]


@dataclass(frozen=True)
class DataTableSummaryPayload(Payload):
    """datatable:summary — profile the tables of a tabular knowledge (csv, xlsx, xls) into
    table_summary and table_column chunks, for round ``attempt`` only."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int


@dataclass(frozen=True)
class SummaryPayload(Payload):
    """knowledge:summary — write the summary of round ``attempt`` (one post-processing
    subtask: it ends with the round's counter decremented)."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int


@dataclass(frozen=True)
class SummaryRefreshPayload(Payload):
    """knowledge:summary_refresh — write the summary of a completed knowledge again (an
    edit changed its inputs, or RegenerateSummary asked); ``sequence`` is the knowledge's
    summary_refresh_seq when it was queued (a refresh that began since makes it moot)."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    sequence: int


@dataclass(frozen=True)
class ImageMultimodalPayload(Payload):
    """image:multimodal — one stored image of round ``attempt``: its OCR text and caption
    written to the text chunk ``chunk_id`` that links it, as ``image_ocr`` and
    ``image_caption`` child chunks numbered ``child_index``, and with ``enable_vector`` the
    picture itself embedded as its ``image_vector`` child."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int
    chunk_id: str
    image_url: str
    image_index: int
    child_index: int
    ocr_chunk_id: str
    caption_chunk_id: str
    enable_ocr: bool = True
    enable_caption: bool = False
    vector_chunk_id: str = ""
    enable_vector: bool = False


@dataclass(frozen=True)
class KnowledgePostProcessPayload(Payload):
    """knowledge:post_process — the enrichment orchestration of round ``attempt``, queued
    once every image of the round is done."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int


@dataclass(frozen=True)
class AutoTagPayload(Payload):
    """knowledge:auto_tag — link round ``attempt``'s knowledge to up to the configured number
    of its knowledge base's existing tags (not a counted subtask: the round never waits)."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int


@dataclass(frozen=True)
class KnowledgeBaseProfilePayload(Payload):
    """kb:profile — write the knowledge base's profile from its documents' titles and
    summaries; unless ``force`` (the on-demand RPC), only when they changed since."""

    knowledge_base_id: str
    force: bool = False


@dataclass(frozen=True)
class QuestionBatchPayload(Payload):
    """knowledge:question — search questions for one batch of round ``attempt``'s text
    chunks (``chunk_ids``, at most 20), batch ``batch_index`` (1-based) of the round's
    question subtasks: it ends with the round's counter decremented once."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int
    batch_index: int
    chunk_ids: list[str]


@dataclass(frozen=True)
class GraphExtractPayload(Payload):
    """knowledge:graph_extract — the entities and relations of one chunk of round
    ``attempt`` (``chunk_id``; "" when the configuration names no extraction model), graph
    subtask ``index`` (1-based) of the round: it ends with the round's counter decremented
    once."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int
    chunk_id: str
    index: int


@dataclass(frozen=True)
class GraphRefreshPayload(Payload):
    """knowledge:graph_refresh — the entities and relations of one text chunk of a completed
    knowledge read again after its content was edited: written only while the knowledge is
    completed at ``attempt`` and the chunk at ``content_revision``. Not one of a round's
    subtasks (nothing is counted)."""

    tenant_id: str
    knowledge_id: str
    knowledge_base_id: str
    attempt: int
    chunk_id: str
    content_revision: int


@dataclass(frozen=True)
class WikiIngestPayload(Payload):
    """wiki:ingest — write the knowledge base's pending wiki ingests into its pages, in
    batches (each ingest carries its round). Debounced: it starts at ``not_before`` (epoch
    seconds), the end of the window it was queued in."""

    knowledge_base_id: str
    not_before: float = 0.0


@dataclass(frozen=True)
class WikiRetractPayload(Payload):
    """wiki:retract — write again, with the synthesis model, the pages of a knowledge base
    that a retract rebuilt from their remaining sources (``slugs``), after taking the
    knowledges' contributions (of rounds up to ``up_to_attempt``; 0: all) out again, in
    case an ingest wrote some after the retract."""

    knowledge_base_id: str
    knowledge_ids: list[str]
    slugs: list[str]
    up_to_attempt: int = 0


# -- knowledge base clone (workers.clone) ---------------------------------------------------


@dataclass(frozen=True)
class KbClonePlanPayload(Payload):
    """kb:clone — plan the difference of a clone job and queue its items."""

    job_id: str


@dataclass(frozen=True)
class KbCloneKnowledgePayload(Payload):
    """kb:clone_knowledge — clone one source knowledge into the job's target."""

    job_id: str
    source_knowledge_id: str


@dataclass(frozen=True)
class KbCloneFaqPayload(Payload):
    """kb:clone_faq — run an FAQ clone job's entry batches; ``part`` counts the tasks the job
    ran before this one (each hands the rest on to the next once its time budget is spent)."""

    job_id: str
    part: int = 0


@dataclass(frozen=True)
class KbCloneDeletePayload(Payload):
    """kb:clone_delete — delete one batch (``batch_index`` of the plan) of clones whose
    source is gone."""

    job_id: str
    batch_index: int
    knowledge_ids: list[str]


@dataclass(frozen=True)
class KnowledgeMovePayload(Payload):
    """knowledge:move — move the job's knowledges from ``source_knowledge_base_id`` into
    ``target_knowledge_base_id`` in ``mode`` (core.move_modes), each at the attempt it had
    when the job was accepted (a reparse-mode move restarts it once). ``source_index_key``
    is the source's index collection, where a reparse-mode move removes the rows from."""

    job_id: str
    source_knowledge_base_id: str
    target_knowledge_base_id: str
    mode: str
    source_index_key: str
    knowledge_ids: list[str]
    attempts: list[int]


@dataclass(frozen=True)
class FaqImportPayload(Payload):
    """faq:import — one import job's rows into an FAQ knowledge base: ``rows`` (ImportRow
    dicts) for a small import, else ``rows_path``, the stored file of its rows (one JSON
    object a line)."""

    job_id: str
    tenant_id: str
    knowledge_base_id: str
    dry_run: bool = False
    rows: list[dict[str, Any]] | None = None
    rows_path: str = ""
