"""A failure that would repeat is final at once: a chunking config the chunker refuses, and
a URL that never answers within its whole time budget. A retry here waits 10 minutes, so a
knowledge failed within WAIT_S failed on its first attempt."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, lite_stack
from tests.support.http_server import RecordingServer

WAIT_S = 120
URL_BUDGET_S = 2


@pytest.fixture(scope="module")
def silent_server() -> Iterator[RecordingServer]:
    """Accepts every request and answers none until closed."""
    closing = threading.Event()

    def never_answer(_handler: BaseHTTPRequestHandler) -> None:
        closing.wait(60)

    server = RecordingServer(default=never_answer, host="localhost")
    yield server
    closing.set()
    server.close()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {
        "SLUICE_DOCUMENT_PROCESS_RETRY_DELAYS": "600",
        "SLUICE_URL_IMPORT_TIMEOUT_S": str(URL_BUDGET_S),
        "SLUICE_SSRF_ALLOW_HOSTS": "localhost",
    }
    with lite_stack(tmp_path_factory.mktemp("final-failures"), env) as running:
        yield running


def _final_failure(
    client: SluiceClient, knowledge_id: str, stage: str, attempt: int = 1
) -> v1.Span:
    """The failed ``stage`` span once round ``attempt`` of the knowledge failed, within
    WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while True:
        knowledge = client.get_knowledge(knowledge_id)
        if knowledge.attempt == attempt:
            if knowledge.parse_status == v1.ParseStatus.FAILED:
                break
            assert knowledge.parse_status != v1.ParseStatus.COMPLETED, "it was processed"
        assert time.monotonic() < deadline, f"not failed within {WAIT_S} s: a retry waits"
        time.sleep(0.5)
    span = {s.name: s for s in client.get_spans(knowledge_id).spans}[stage]
    assert span.status == v1.SpanStatus.FAILED
    assert "will retry" not in span.error_message
    return span


def test_a_chunking_config_the_chunker_refuses_fails_at_once(stack: Stack) -> None:
    no_index = v1.IndexingStrategy(vector_enabled=False, keyword_enabled=False)
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(
            "shrinks", config=v1.KnowledgeBaseConfig(indexing=no_index)
        )
        # Fine with the knowledge base's 512; the knowledge keeps its own overlap of 150.
        overlap = v1.ProcessConfig(chunking=v1.ChunkingConfig(chunk_overlap=150))
        knowledge = client.upload_file(
            kb.id,
            io.BytesIO(b"# Notes\n\n" + b"word " * 400),
            file_name="notes.md",
            process_config=overlap,
        )
        assert client.wait_until_done(knowledge.id, WAIT_S).parse_status == (
            v1.ParseStatus.COMPLETED
        )
        # The knowledge base's size shrinks under the overlap; a batch reparse queues it as is.
        client.update_knowledge_base(
            kb.id,
            config=v1.KnowledgeBaseConfig(
                indexing=no_index, chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=0)
            ),
        )
        assert client.batch_reparse(knowledge_base_id=kb.id).accepted == 1
        span = _final_failure(client, knowledge.id, "chunking", attempt=2)
        assert span.error_code == "CHUNKING_FAILED"
        assert "chunk_overlap" in span.error_message


def test_a_url_silent_past_its_whole_budget_fails_at_once(
    stack: Stack, silent_server: RecordingServer
) -> None:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base("silent")
        knowledge = client.create_from_url(kb.id, silent_server.url("/never", host="localhost"))
        span = _final_failure(client, knowledge.id, "docreader")
        assert span.error_code == "URL_FETCH_FAILED"
        assert f"timed out after {URL_BUDGET_S} s" in span.error_message
    assert len(silent_server.requests) == 1, "fetched once, not retried"
