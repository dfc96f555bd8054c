"""What the document pipeline and the data-table task use of their process's parts.

Each is a Protocol: ``process_document``, ``summarize_data_tables``, the stages their
pipelines are composed of and their rounds reach only what they name (mypy holds them to
that). The task handlers (workers.tasks) hand in the context the composition root installed.
"""

from __future__ import annotations

from typing import Protocol

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.summaries import SummaryRepository
from storage.db.repositories.wiki_ops import WikiOpRepository
from storage.files.resource_catalog import ResourceCatalog
from storage.index.milvus_index import MilvusIndex
from workers.docreader_client import DocReaderClient
from workers.models.protocols import VisionModels
from workers.pipeline.chunks.indexing import EmbedderProvider
from workers.pipeline.reading.parts import OutboundRules, ReadingParts
from workers.pipeline.round.parts import (
    CheckpointParts,
    QueueParts,
    RoundProductParts,
    RoundSpanParts,
    StateParts,
)
from workers.settings_groups import ModelSettings


class ModelRules(Protocol):
    """The settings of the embedding models (the batch size chunks are embedded in)."""

    @property
    def models(self) -> ModelSettings: ...


class PipelineSettings(OutboundRules, ModelRules, Protocol):
    """The settings the document stages read: the outbound rules of reading and fetching,
    the embedding batch size of indexing."""


class IndexingParts(Protocol):
    """Embedding chunks and writing them to the index (ChunkIndexer)."""

    @property
    def embedders(self) -> EmbedderProvider: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def settings(self) -> ModelRules: ...


class DocumentStageParts(
    ReadingParts, IndexingParts, StateParts, RoundProductParts, QueueParts, Protocol
):
    """The document pipeline's stages (document_stages): reading, chunking into the round's
    products, indexing, the images' tasks (and the vision model their captions need) and
    the post-processing plan (and the profile refresh of the knowledge base it queues)."""

    @property
    def settings(self) -> PipelineSettings: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def db(self) -> Database: ...
    @property
    def models(self) -> VisionModels: ...
    @property
    def summaries(self) -> SummaryRepository: ...
    @property
    def wiki_ops(self) -> WikiOpRepository: ...


class DocumentRoundParts(RoundSpanParts, RoundProductParts, QueueParts, Protocol):
    """A document's round (DocumentRound): its spans, the products it removes when it
    fails or is taken over, the queue's try and the table summary it queues."""


class DocumentParts(DocumentStageParts, DocumentRoundParts, CheckpointParts, Protocol):
    """document:process: the knowledge and its knowledge base, the round's status moves
    and checkpoints, its stages and its round."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class TableStageParts(IndexingParts, Protocol):
    """The data-table task's stages (table_stages): the round's chunks read and written,
    the table chunks indexed."""

    @property
    def chunks(self) -> ChunkRepository: ...


class DataTableRoundParts(RoundSpanParts, Protocol):
    """The data-table task's round (DataTableRound): its step span, and the table chunks
    and index rows it removes when it fails or is taken over."""

    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def index(self) -> MilvusIndex: ...


class DataTableParts(TableStageParts, DataTableRoundParts, CheckpointParts, Protocol):
    """datatable:summary: the knowledge and its knowledge base, the round's checkpoints,
    the task's stages and its round."""

    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...


class ImageTaskParts(IndexingParts, RoundSpanParts, CheckpointParts, Protocol):
    """image:multimodal: the stored image (the catalog), its OCR (the docreader) and
    caption (the vision models), the text chunk it is written under, the index its
    children go to, the round's spans and the post-processing it may queue."""

    @property
    def db(self) -> Database: ...
    @property
    def catalog(self) -> ResourceCatalog: ...
    @property
    def docreader(self) -> DocReaderClient: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def models(self) -> VisionModels: ...
