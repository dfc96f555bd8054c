"""What the import task uses of its worker's context."""

from __future__ import annotations

from typing import Protocol

from storage.db.engine import Database
from storage.db.repositories.tags import TagRepository
from storage.events.base import EventPublisher
from storage.files.backend_scoped import BackendScopedFileService


class FaqImportTaskParts(Protocol):
    @property
    def db(self) -> Database: ...
    @property
    def files(self) -> BackendScopedFileService: ...
    @property
    def tags(self) -> TagRepository: ...
    @property
    def publisher(self) -> EventPublisher: ...
