"""A document whose workers die (SIGKILL) while it is finalizing — its summary's model
call in flight — still ends completed with its subtask counter at 0 and its summary
written, once another worker starts — full mode: RQ workers, the housekeeper, the
milvus-lite server, PostgreSQL, a real chat-completions server."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, full_stack
from tests.support.openai_chat_server import ChatServer
from tests.support.processes import Process, python

# Short, so the test need not wait long for the sweep.
STALE_AFTER_S = 10
SUMMARY = "The walrus census counts forty-one walruses on the north spit."
# Long enough that the kill lands while the first try's call is in flight.
MODEL_DELAY_S = 4.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "SLUICE_STALE_AFTER": str(STALE_AFTER_S),
        "SLUICE_HOUSEKEEPING_INTERVAL": "1",
        "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
    }
    with full_stack(tmp_path_factory.mktemp("finalizing-crash"), extra_env=env) as running:
        yield running


def test_workers_killed_while_finalizing_still_complete_the_document(
    stack: Stack, tmp_path: Path
) -> None:
    with (
        ChatServer(answer=lambda _: SUMMARY, delay_s=MODEL_DELAY_S) as chat,
        SluiceClient(stack.target) as client,
    ):
        writer = v1.ModelConfig(provider="openai", model="writer-1", base_url=chat.base_url)
        config = v1.KnowledgeBaseConfig(summary=v1.SummaryConfig(enabled=True, model=writer))
        kb = client.create_knowledge_base(f"final-crash-{uuid.uuid4().hex[:8]}", config=config)
        path = tmp_path / "census.md"
        path.write_text("# Census\n\nThe keepers counted the walruses on the north spit.\n")
        knowledge = client.upload_file(kb.id, path)
        deadline = time.monotonic() + WAIT_S
        while not chat.log():
            row = client.get_knowledge(knowledge.id)
            assert row.parse_status != v1.ParseStatus.FAILED, row.error_message
            assert time.monotonic() < deadline, "the summary's model was never called"
            time.sleep(0.05)
        row = client.get_knowledge(knowledge.id)
        assert row.parse_status == v1.ParseStatus.FINALIZING
        assert row.pending_subtasks_count == 1
        for name in [n for n in stack.processes if n.startswith("worker")]:
            stack.processes[name].kill()
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        stack.processes["worker-after-crash"] = Process(
            "worker-after-crash",
            python("-m", "workers.main", "--name", f"{prefix}-after-crash"),
            stack.env,
        )

        finished = client.wait_until_done(knowledge.id, WAIT_S)

        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
        assert finished.pending_subtasks_count == 0
        assert finished.summary_status == v1.SummaryStatus.COMPLETED
        assert finished.summary == SUMMARY
        assert len(chat.log()) >= 2, "the killed try's summary was never redone"
        spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
        assert spans["postprocess"].status == v1.SpanStatus.DONE
        assert spans["knowledge_processing"].status == v1.SpanStatus.DONE
