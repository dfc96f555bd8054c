"""`sluice-worker` builds every part from the one Settings it read: a worker started in
full mode (the mode it forces, whatever SLUICE_MODE says) sees full mode in the context its
task handlers run with, and in the queue it serves."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from workers import main as worker_main
from workers import wiring
from workers.context import current_context
from workers.settings import Settings


class _Context:
    """Stands in for a built WorkerContext (no database, index or docreader needed)."""

    def __init__(self, settings: Settings, parts: dict[str, Any]) -> None:
        self.settings = settings
        self.parts = parts
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.parts["queue"].close()


def test_a_worker_sees_the_mode_it_was_started_in_in_every_part(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in [n for n in os.environ if n.startswith("SLUICE_")]:
        monkeypatch.delenv(name)
    # SLUICE_MODE unset: the environment alone would say lite.
    monkeypatch.setenv("SLUICE_DOCREADER_ADDRESS", "127.0.0.1:9")
    monkeypatch.setenv("SLUICE_DATABASE_URL", f"sqlite:///{tmp_path / 'sluice.db'}")
    monkeypatch.setenv("SLUICE_KEY_PREFIX", "worker-composition")
    built: list[_Context] = []

    def build_context(settings: Settings, **parts: Any) -> _Context:
        built.append(_Context(settings, parts))
        return built[-1]

    served: list[tuple[str, str, dict[str, Any]]] = []
    seen_by_handlers: list[object] = []

    def run_worker(redis_url: str, key_prefix: str, queues: Any, **options: Any) -> None:
        seen_by_handlers.append(current_context())
        served.append((redis_url, key_prefix, options))

    monkeypatch.setattr(wiring, "build_context", build_context)
    monkeypatch.setattr(worker_main, "run_worker", run_worker)
    monkeypatch.setattr(worker_main, "hand_memory_back", lambda: None)

    assert worker_main.main(["--burst"]) == 0

    assert [ctx.settings.mode for ctx in built] == ["full"]
    (ctx,) = built
    assert seen_by_handlers == [ctx]
    assert ctx.settings.api.auth_required  # full mode's default, not lite's
    assert ctx.parts["docreader_target"] == "127.0.0.1:9"
    assert served == [
        (
            ctx.settings.queue.redis_url,
            "worker-composition",
            {"burst": True, "name": None, "simple": True, "shutdown_grace_s": 30.0},
        )
    ]
    # Stopped, the worker closes what it built and leaves no context behind.
    assert ctx.closed
    with pytest.raises(RuntimeError, match="no worker context installed"):
        current_context()
