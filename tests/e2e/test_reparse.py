"""Reparse and BatchReparse end to end, in lite and full mode: each round is its own
attempt, an old round's late task never touches the new one, and a rejected reparse leaves
the current round alone."""

from __future__ import annotations

import io
import time
import uuid

import pytest
from sluice_client import FailedPrecondition, InvalidArgument, NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import (
    OPEN,
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
    running,
    searchable_chunk_ids,
    slow_to_embed,
)
from tests.e2e.stacks import Stack


def _kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"reparse-{uuid.uuid4().hex[:8]}")


def _written(client: SluiceClient, knowledge_id: str, attempt: int) -> int:
    spans = {s.name: s for s in client.get_spans(knowledge_id, attempt).spans}
    assert spans["chunking"].output is not None
    return int(spans["chunking"].output.to_dict()["chunks_written"])


def test_reparse_with_new_chunking_replaces_every_chunk_and_index_row(
    stack: Stack, client: SluiceClient
) -> None:
    kb = _kb(client)
    first = client.upload_file(kb.id, io.BytesIO(notes("Kittiwake")), file_name="kittiwake.md")
    assert done(client, first.id).parse_status == v1.ParseStatus.COMPLETED
    first_count = _written(client, first.id, 1)
    assert chunk_ids(client, first.id) == attempt_chunk_ids(first.id, 1, first_count)

    restarted = client.reparse(first.id, process_config=chunking(100))

    assert (restarted.attempt, restarted.parse_status) == (2, v1.ParseStatus.PENDING)
    assert restarted.process_overrides is not None
    assert restarted.process_overrides.chunking is not None
    assert restarted.process_overrides.chunking.chunk_size == 100
    finished = done(client, first.id)
    assert (finished.attempt, finished.parse_status) == (2, v1.ParseStatus.COMPLETED)
    assert finished.enable_status == v1.EnableStatus.ENABLED
    second_count = _written(client, first.id, 2)
    assert second_count > first_count
    new_ids = attempt_chunk_ids(first.id, 2, second_count)
    assert chunk_ids(client, first.id) == new_ids
    assert searchable_chunk_ids(client, kb.id, first.id) == new_ids
    assert index_rows(stack, first.id) in (None, second_count)
    old_spans = client.get_spans(first.id, 1).spans
    assert {s.name: s.status for s in old_spans}[ROOT] == v1.SpanStatus.DONE


def test_a_rejected_reparse_leaves_a_completed_round_untouched(
    stack: Stack, client: SluiceClient
) -> None:
    kb = _kb(client)
    knowledge = client.upload_file(kb.id, io.BytesIO(notes("Puffin")), file_name="puffin.md")
    before = done(client, knowledge.id)
    ids_before = chunk_ids(client, knowledge.id)

    with pytest.raises(InvalidArgument) as refused:
        client.reparse(knowledge.id, process_config=chunking(100, overlap=150))

    assert refused.value.field_violations[0][0] == "process_config.chunking.chunk_overlap"
    after = client.get_knowledge(knowledge.id)
    assert (after.attempt, after.parse_status, after.enable_status) == (
        before.attempt,
        v1.ParseStatus.COMPLETED,
        v1.EnableStatus.ENABLED,
    )
    assert after.process_overrides == before.process_overrides
    assert chunk_ids(client, knowledge.id) == ids_before
    assert searchable_chunk_ids(client, kb.id, knowledge.id) == ids_before


def test_a_rejected_reparse_leaves_the_running_round_running(client: SluiceClient) -> None:
    kb = _kb(client)
    knowledge = client.upload_file(
        kb.id,
        io.BytesIO(slow_to_embed("Petrel")),
        file_name="petrel.md",
        process_config=SMALL_CHUNKS,
    )
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running("embedding", chunks_embedded=1), WAIT_S)
        with pytest.raises(InvalidArgument):
            client.reparse(knowledge.id, process_config=chunking(0, overlap=-1))
        embedded = spans.spans["embedding"].output
        assert embedded is not None
        so_far = float(embedded.to_dict()["chunks_embedded"])
        # The same round goes on embedding after the refusal.
        spans.wait_for(running("embedding", chunks_embedded=so_far + 1), WAIT_S)
        current = client.get_knowledge(knowledge.id)
        assert (current.attempt, current.parse_status) == (1, v1.ParseStatus.PROCESSING)
        client.cancel_parse(knowledge.id)


def test_a_late_task_of_attempt_1_cannot_touch_attempt_2(
    stack: Stack, client: SluiceClient
) -> None:
    kb = _kb(client)
    knowledge = client.upload_file(
        kb.id,
        io.BytesIO(slow_to_embed("Shearwater")),
        file_name="shearwater.md",
        process_config=SMALL_CHUNKS,
    )
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running("embedding", chunks_embedded=1), WAIT_S)
        client.reparse(knowledge.id, process_config=chunking(4000))

    finished = done(client, knowledge.id)
    assert (finished.attempt, finished.parse_status) == (2, v1.ParseStatus.COMPLETED)
    count = _written(client, knowledge.id, 2)
    new_ids = attempt_chunk_ids(knowledge.id, 2, count)
    # Attempt 1 checks before and after every embedding batch; give it time to misbehave.
    time.sleep(3)
    assert chunk_ids(client, knowledge.id) == new_ids
    assert searchable_chunk_ids(client, kb.id, knowledge.id) == new_ids
    assert index_rows(stack, knowledge.id) in (None, count)
    old = {s.name: s for s in client.get_spans(knowledge.id, 1).spans}
    assert all(s.status not in OPEN for s in old.values())
    assert old[ROOT].status == v1.SpanStatus.CANCELLED
    assert old["embedding"].error_code == "SUPERSEDED"
    current = client.get_knowledge(knowledge.id)
    assert (current.attempt, current.parse_status) == (2, v1.ParseStatus.COMPLETED)


def test_reparse_of_a_draft_or_an_unknown_knowledge_is_refused(client: SluiceClient) -> None:
    kb = _kb(client)
    draft = client.create_manual(kb.id, "Tide table", "High water at 06:10.", publish=False)

    with pytest.raises(FailedPrecondition):
        client.reparse(draft.id)
    with pytest.raises(NotFound):
        client.reparse(str(uuid.uuid4()))

    assert client.get_knowledge(draft.id).parse_status == v1.ParseStatus.DRAFT


def test_batch_reparse_restarts_the_accepted_knowledges(client: SluiceClient) -> None:
    kb = _kb(client)
    knowledges = [
        client.upload_file(kb.id, io.BytesIO(notes(topic)), file_name=f"{topic}.md")
        for topic in ("Gannet", "Fulmar")
    ]
    for knowledge in knowledges:
        done(client, knowledge.id)

    by_ids = client.batch_reparse([k.id for k in knowledges] + [str(uuid.uuid4())])
    assert (bool(by_ids.job_id), by_ids.accepted) == (True, 2)
    _wait_attempt(client, [k.id for k in knowledges], 2)

    by_kb = client.batch_reparse(knowledge_base_id=kb.id)
    assert by_kb.accepted == 2 and by_kb.job_id != by_ids.job_id
    _wait_attempt(client, [k.id for k in knowledges], 3)
    for knowledge in knowledges:
        count = _written(client, knowledge.id, 3)
        assert chunk_ids(client, knowledge.id) == attempt_chunk_ids(knowledge.id, 3, count)


def _wait_attempt(client: SluiceClient, knowledge_ids: list[str], attempt: int) -> None:
    deadline = time.monotonic() + WAIT_S
    for knowledge_id in knowledge_ids:
        while client.get_knowledge(knowledge_id).attempt < attempt:
            assert time.monotonic() < deadline, "the batch did not restart the knowledge"
            time.sleep(0.2)
        finished = done(client, knowledge_id)
        assert (finished.attempt, finished.parse_status) == (attempt, v1.ParseStatus.COMPLETED)
