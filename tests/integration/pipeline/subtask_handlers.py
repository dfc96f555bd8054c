"""The queue handler of the enrichment subtasks the post-processing tests plan: it waits
until the test lets it go, then counts itself done as every real subtask does."""

from __future__ import annotations

import threading
from typing import Any

from workers.context import current_context
from workers.pipeline.round.subtasks import finish_subtask

RELEASE = threading.Event()
RELEASE_WAIT_S = 60.0


def finish(payload: dict[str, Any]) -> None:
    RELEASE.wait(RELEASE_WAIT_S)
    finish_subtask(current_context(), payload["knowledge_id"], int(payload["attempt"]))
