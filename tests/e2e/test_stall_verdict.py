"""GetSpans tells a quiet in-flight document's stall verdict: queued while its task waits,
stalled once no task is left for it (the threshold is shortened by config)."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from storage.queue.rq_queue import RQTaskQueue
from tests.e2e.stacks import Stack, full_stack
from tests.support.databases import REDIS_URL


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # No workers: the task stays queued until the test takes it away.
    with full_stack(
        tmp_path_factory.mktemp("stall"),
        workers=0,
        extra_env={"SLUICE_STALL_VERDICT_AFTER": "1", "SLUICE_HOUSEKEEPING_ENABLED": "false"},
    ) as running:
        yield running


def test_queued_then_stalled(stack: Stack) -> None:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("stall")
        knowledge = client.upload_file(
            kb.id, io.BytesIO(b"# Quiet\n\nNobody works on me."), file_name="quiet.md"
        )
        fresh = client.get_spans(knowledge.id)
        assert fresh.stall_state in (v1.StallState.UNSPECIFIED, v1.StallState.RUNNING)
        time.sleep(1.5)
        waiting = client.get_spans(knowledge.id)
        assert waiting.stall_state == v1.StallState.QUEUED

        queue = RQTaskQueue(REDIS_URL, key_prefix=stack.env["SLUICE_KEY_PREFIX"])
        try:
            assert queue.cancel_group(knowledge.id) == 1
        finally:
            queue.close()
        stalled = client.get_spans(knowledge.id)
        assert stalled.stall_state == v1.StallState.STALLED
        assert stalled.parse_status == v1.ParseStatus.PENDING
