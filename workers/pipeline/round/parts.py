"""What a round's bookkeeping and its runner use of their process's parts: its row, its
spans, its products, the queue's stop signals. Each is a Protocol, so the API and
housekeeping, which end rounds too, hand in whatever context they hold."""

from __future__ import annotations

from typing import Protocol

from storage.db.repositories.chunks import ChunkRepository
from storage.db.repositories.index_checkpoints import IndexCheckpointRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.db.repositories.spans import SpanRepository
from storage.events.base import EventPublisher
from storage.graph.store import GraphStore
from storage.index.milvus_index import MilvusIndex
from storage.queue.base import TaskQueue


class RowParts(Protocol):
    """The knowledge rows a round's currency is judged by."""

    @property
    def knowledges(self) -> KnowledgeRepository: ...


class QueueParts(Protocol):
    """The task queue: queueing a task, a try's attempt info, cancel and shutdown signals."""

    @property
    def queue(self) -> TaskQueue: ...


class CheckpointParts(RowParts, QueueParts, Protocol):
    """A round's stop points: its row and the queue's cancel and shutdown signals."""


class StateParts(RowParts, Protocol):
    """A round's status moves, each published."""

    @property
    def publisher(self) -> EventPublisher: ...


class RoundSpanParts(StateParts, Protocol):
    """A round's spans, the knowledge they are of and where their changes are published."""

    @property
    def spans(self) -> SpanRepository: ...


class RoundProductParts(Protocol):
    """Where a round's products are: its chunks, their index rows, its index checkpoint,
    its graph rows."""

    @property
    def index_checkpoints(self) -> IndexCheckpointRepository: ...
    @property
    def chunks(self) -> ChunkRepository: ...
    @property
    def index(self) -> MilvusIndex: ...
    @property
    def graph(self) -> GraphStore: ...
