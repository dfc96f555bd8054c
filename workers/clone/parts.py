"""What cloning a knowledge base uses of its process's parts."""

from __future__ import annotations

from typing import Protocol

from core.clock import Clock
from storage.db.engine import Database
from storage.db.repositories.faq_entries import FaqEntryRepository
from storage.db.repositories.tags import TagRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.queue.base import TaskQueue
from workers.lifecycle.parts import DeletionParts
from workers.settings import Settings


class CloneParts(DeletionParts, Protocol):
    """The delete chain (a stale or half-made clone goes through it), the database the job
    rows live in, the tags mapped by name, the queue the items go to, and where the
    target knowledge base's files are written; an FAQ knowledge base's entries, and the
    clock an FAQ clone task's time budget runs on."""

    @property
    def db(self) -> Database: ...
    @property
    def tags(self) -> TagRepository: ...
    @property
    def faq_entries(self) -> FaqEntryRepository: ...
    @property
    def queue(self) -> TaskQueue: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
    def files_for_knowledge_base(self, knowledge_base_id: str) -> BackendScopedFileService: ...
