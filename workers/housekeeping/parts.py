"""What housekeeping uses of its process's parts: one Protocol for every sweep, since a round
runs them all on the same parts (rounds.Sweep). The housekeeper's own process and lite mode's
API hand in their context; any object holding these parts will do."""

from __future__ import annotations

from typing import Protocol

from core.clock import Clock
from storage.db.engine import Database
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from storage.db.repositories.spans import SpanRepository
from storage.events.base import EventPublisher
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from storage.queue.base import TaskQueue
from workers.enrichment.wiki.parts import WikiRetractParts
from workers.faq_import.parts import FaqImportTaskParts
from workers.lifecycle.move.parts import MoveParts
from workers.pipeline.round.parts import RoundProductParts
from workers.settings import Settings


class HousekeepingParts(
    MoveParts, RoundProductParts, WikiRetractParts, FaqImportTaskParts, Protocol
):
    """The sweeps' thresholds and clock, the database their queries run on, the queue they
    judge and requeue through, the spans they read and close (published), the knowledge
    bases a recovered round's products are removed by (its wiki contributions too), the
    catalog and files of deleted resources, and what a maintenance job given up settles
    (a move's knowledges, an import's stored rows)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def db(self) -> Database: ...
    @property
    def queue(self) -> TaskQueue: ...
    @property
    def spans(self) -> SpanRepository: ...
    @property
    def publisher(self) -> EventPublisher: ...
    @property
    def knowledge_bases(self) -> KnowledgeBaseRepository: ...
    @property
    def catalog(self) -> ResourceCatalog: ...
    @property
    def files(self) -> BackendScopedFileService: ...
