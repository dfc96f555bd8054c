"""CancelParse end to end, in lite and full mode: a running round stops within 2 s, during
the docreader call as well as between embedding batches, and leaves nothing behind.

The clock runs from the moment CancelParse returns to the moment WatchSpans shows the
round's root span closed as cancelled, which the worker does when it has stopped and
removed what it wrote; the stage span's message tells the worker's close from the API's
fallback (which would only come after 5 s anyway).
"""

from __future__ import annotations

import io
import time
import uuid

import pytest
from sluice_client import FailedPrecondition, NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import (
    ROOT,
    SMALL_CHUNKS,
    WAIT_S,
    attempt_chunk_ids,
    chunk_ids,
    chunking,
    done,
    index_rows,
    notes,
    recording,
    root_closed,
    running,
    searchable_chunk_ids,
    slow_to_embed,
    slow_to_read,
)
from tests.e2e.stacks import Stack
from tests.support.waiting import wait_until

STOP_WITHIN_S = 2.0
INDEX_VISIBILITY_S = 15.0
WORKER_MESSAGE = "cancelled by the user"


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"cancel-{uuid.uuid4().hex[:8]}")


def _cancel_and_time_the_stop(
    client: SluiceClient, knowledge: v1.Knowledge, stage: str, **progress: float
) -> tuple[float, dict[str, v1.Span]]:
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running(stage, **progress), WAIT_S)
        cancelled = client.cancel_parse(knowledge.id)
        returned = time.monotonic()
        assert cancelled.parse_status == v1.ParseStatus.CANCELLED
        stopped = spans.wait_for(root_closed, WAIT_S)
    return max(0.0, stopped - returned), spans.spans


def _assert_stopped_by_the_worker(spans: dict[str, v1.Span], stage: str) -> None:
    assert spans[ROOT].status == v1.SpanStatus.CANCELLED
    assert (spans[stage].status, spans[stage].error_code) == (v1.SpanStatus.CANCELLED, "CANCELLED")
    assert spans[stage].error_message == WORKER_MESSAGE


def test_cancel_during_the_docreader_call_stops_within_2_s(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    knowledge = client.upload_file(kb.id, io.BytesIO(slow_to_read("Tern")), file_name="tern.html")

    latency, spans = _cancel_and_time_the_stop(client, knowledge, "docreader")

    assert latency < STOP_WITHIN_S, f"the worker stopped {latency:.2f} s after the cancel"
    _assert_stopped_by_the_worker(spans, "docreader")
    assert spans["chunking"].status == v1.SpanStatus.CANCELLED
    assert not chunk_ids(client, knowledge.id)
    final = client.get_knowledge(knowledge.id)
    assert (final.parse_status, final.enable_status) == (
        v1.ParseStatus.CANCELLED,
        v1.EnableStatus.DISABLED,
    )


def test_cancel_during_embedding_stops_within_2_s_and_leaves_no_chunks(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    knowledge = client.upload_file(
        kb.id, io.BytesIO(slow_to_embed("Skua")), file_name="skua.md", process_config=SMALL_CHUNKS
    )

    latency, spans = _cancel_and_time_the_stop(client, knowledge, "embedding", chunks_embedded=1)

    assert latency < STOP_WITHIN_S, f"the worker stopped {latency:.2f} s after the cancel"
    _assert_stopped_by_the_worker(spans, "embedding")
    assert not chunk_ids(client, knowledge.id)
    # The worker removed its index rows; another process may see them for a moment longer.
    wait_until(
        lambda: (
            not searchable_chunk_ids(client, kb.id, knowledge.id)
            and index_rows(stack, knowledge.id) in (None, 0)
        ),
        INDEX_VISIBILITY_S,
        "the index rows to go",
    )
    # Nothing was written after the stop either.
    time.sleep(2)
    assert not chunk_ids(client, knowledge.id)
    assert not searchable_chunk_ids(client, kb.id, knowledge.id)
    assert index_rows(stack, knowledge.id) in (None, 0)


def test_a_cancelled_knowledge_can_be_reparsed(client: SluiceClient, kb: v1.KnowledgeBase) -> None:
    knowledge = client.upload_file(
        kb.id,
        io.BytesIO(slow_to_embed("Razorbill")),
        file_name="rb.md",
        process_config=SMALL_CHUNKS,
    )
    _cancel_and_time_the_stop(client, knowledge, "embedding", chunks_embedded=1)

    client.reparse(knowledge.id, process_config=chunking(4000))

    finished = done(client, knowledge.id)
    assert (finished.attempt, finished.parse_status) == (2, v1.ParseStatus.COMPLETED)
    spans = {s.name: s for s in client.get_spans(knowledge.id, 2).spans}
    assert spans["chunking"].output is not None
    count = int(spans["chunking"].output.to_dict()["chunks_written"])
    assert chunk_ids(client, knowledge.id) == attempt_chunk_ids(knowledge.id, 2, count)


def test_only_a_round_in_flight_can_be_cancelled(
    client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    knowledge = client.upload_file(kb.id, io.BytesIO(notes("Eider")), file_name="eider.md")
    done(client, knowledge.id)

    with pytest.raises(FailedPrecondition) as refused:
        client.cancel_parse(knowledge.id)
    assert "completed" in refused.value.message
    with pytest.raises(NotFound):
        client.cancel_parse(str(uuid.uuid4()))
    assert client.get_knowledge(knowledge.id).parse_status == v1.ParseStatus.COMPLETED
