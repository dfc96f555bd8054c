"""The worker context of in-process tests, built in this one place: every test that needs
one (lite queue and in-memory bus unless it says otherwise) goes through ``worker_context``,
so a change to how a WorkerContext is composed is made here once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.clock import SYSTEM_CLOCK, Clock
from storage.db.migrate import upgrade_to_head
from storage.events.base import EventPublisher, ProgressEvent
from storage.events.memory_bus import InMemoryEventBus
from storage.queue.base import TaskQueue
from storage.queue.lite import LiteTaskQueue
from workers.context import WorkerContext, install_context
from workers.settings import Settings
from workers.settings_groups import StorageSettings
from workers.wiring import build_context


class RecordingPublisher:
    """An EventPublisher that keeps what it was given."""

    def __init__(self) -> None:
        self.events: list[ProgressEvent] = []

    def publish(self, event: ProgressEvent) -> None:
        self.events.append(event)


# Nothing listens there: these tests never reach a docreader through the context.
NO_DOCREADER = "127.0.0.1:9"


@contextmanager
def worker_context(
    settings: Settings,
    *,
    queue: TaskQueue | None = None,
    publisher: EventPublisher | None = None,
    install: bool = False,
    clock: Clock = SYSTEM_CLOCK,
) -> Iterator[WorkerContext]:
    """A context on ``settings`` with its database migrated and storage directory made;
    ``install``: also the process's current context (for code that runs as a task)."""
    settings.storage.storage_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.storage.database_url)
    context = build_context(
        settings,
        queue=queue or LiteTaskQueue(),
        publisher=publisher or InMemoryEventBus(),
        docreader_target=NO_DOCREADER,
        clock=clock,
    )
    if install:
        install_context(context)
    try:
        yield context
    finally:
        if install:
            install_context(None)
        context.close()


def local_settings(database_url: str, data_dir: Path, **groups: Any) -> Settings:
    """Settings over ``database_url`` with milvus-lite and the stored files under
    ``data_dir``; ``groups`` sets other groups (``models=ModelSettings(...)``...)."""
    return Settings(
        data_dir=data_dir,
        storage=StorageSettings(
            database_url=database_url,
            milvus_uri=str(data_dir / "milvus.db"),
            storage_dir=data_dir / "files",
        ),
        **groups,
    )
