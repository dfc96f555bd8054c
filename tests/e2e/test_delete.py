"""DeleteKnowledge and BatchDeleteKnowledge end to end, in lite and full mode: the row, its
chunks, its index rows, its stored file and the images extracted from it all go, also when
the knowledge was still being processed, and a batch spans knowledge bases."""

from __future__ import annotations

import io
import time
import uuid

import pytest
from sluice_client import NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import (
    SMALL_CHUNKS,
    WAIT_S,
    chunk_ids,
    done,
    html_with_image,
    index_rows,
    notes,
    recording,
    running,
    searchable_chunk_ids,
    slow_to_embed,
    stored_files,
)
from tests.e2e.stacks import Stack
from tests.support.waiting import wait_until

INDEX_VISIBILITY_S = 15.0


def _kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"delete-{uuid.uuid4().hex[:8]}")


def _gone(client: SluiceClient, knowledge_id: str) -> bool:
    try:
        client.get_knowledge(knowledge_id)
    except NotFound:
        return True
    return False


def _indexed(stack: Stack, client: SluiceClient, knowledge: v1.Knowledge) -> bool:
    found = searchable_chunk_ids(client, knowledge.knowledge_base_id, knowledge.id)
    return bool(found) or index_rows(stack, knowledge.id) not in (None, 0)


def test_delete_removes_the_row_chunks_index_rows_file_and_images(
    stack: Stack, client: SluiceClient
) -> None:
    kb = _kb(client)
    before = stored_files(stack)
    knowledge = client.upload_file(
        kb.id, io.BytesIO(html_with_image("Cormorant")), file_name="cormorant.html"
    )
    assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
    added = stored_files(stack) - before
    assert {p.suffix for p in added} == {".html", ".png"}, added
    assert searchable_chunk_ids(client, kb.id, knowledge.id)

    client.delete_knowledge(knowledge.id)

    assert _gone(client, knowledge.id)
    assert knowledge.id not in {k.id for k in client.list_knowledge(kb.id)}
    assert not searchable_chunk_ids(client, kb.id, knowledge.id)
    assert index_rows(stack, knowledge.id) in (None, 0)
    assert not any(p.exists() for p in added)
    with pytest.raises(NotFound):
        next(client.list_chunks(knowledge.id))
    with pytest.raises(NotFound):
        client.delete_knowledge(knowledge.id)
    with pytest.raises(NotFound):
        client.delete_knowledge(str(uuid.uuid4()))


def test_delete_while_embedding_leaves_nothing_behind(stack: Stack, client: SluiceClient) -> None:
    kb = _kb(client)
    before = stored_files(stack)
    knowledge = client.upload_file(
        kb.id, io.BytesIO(slow_to_embed("Gull")), file_name="gull.md", process_config=SMALL_CHUNKS
    )
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running("embedding", chunks_embedded=1), WAIT_S)
        client.delete_knowledge(knowledge.id)

    assert _gone(client, knowledge.id)
    assert stored_files(stack) == before
    # The worker stops at its next checkpoint and removes what it wrote since.
    wait_until(
        lambda: not _indexed(stack, client, knowledge), INDEX_VISIBILITY_S, "the index rows to go"
    )
    time.sleep(2)
    assert not searchable_chunk_ids(client, kb.id, knowledge.id)
    assert index_rows(stack, knowledge.id) in (None, 0)
    # The worker is free again.
    after = client.upload_file(kb.id, io.BytesIO(notes("Gull")), file_name="gull-2.md")
    assert done(client, after.id).parse_status == v1.ParseStatus.COMPLETED


def test_batch_delete_across_two_knowledge_bases(stack: Stack, client: SluiceClient) -> None:
    first_kb, second_kb = _kb(client), _kb(client)
    files_before = stored_files(stack)
    uploaded = {
        (kb.id, topic): client.upload_file(kb.id, io.BytesIO(notes(topic)), file_name=f"{topic}.md")
        for kb, topics in ((first_kb, ("Auk", "Loon")), (second_kb, ("Smew", "Teal")))
        for topic in topics
    }
    for knowledge in uploaded.values():
        done(client, knowledge.id)
    kept = uploaded[(first_kb.id, "Loon")]
    doomed = [k for k in uploaded.values() if k.id != kept.id]
    unknown = str(uuid.uuid4())
    kept_files = stored_files(stack) - files_before

    result = client.batch_delete_knowledge([k.id for k in doomed] + [unknown])

    assert (result.deleted, result.failed_ids) == (3, [unknown])
    assert {k.id for k in client.list_knowledge(first_kb.id)} == {kept.id}
    assert not list(client.list_knowledge(second_kb.id))
    wait_until(lambda: all(_gone(client, k.id) for k in doomed), 60, "the batch task")
    # A worker deleted the index rows: another process's reads of the milvus-lite server may
    # see them for a moment longer.
    wait_until(
        lambda: not any(_indexed(stack, client, k) for k in doomed),
        INDEX_VISIBILITY_S,
        "the index rows to go",
    )
    # The stored files go last, after the rows (the spec's order): a moment after the rows.
    wait_until(lambda: len(stored_files(stack) - files_before) == 1, 30, "the stored files to go")
    remaining = stored_files(stack) - files_before
    assert len(remaining) == 1 and remaining <= kept_files
    assert searchable_chunk_ids(client, first_kb.id, kept.id) == chunk_ids(client, kept.id)
    again = client.batch_delete_knowledge([doomed[0].id])
    assert (again.deleted, again.failed_ids) == (0, [doomed[0].id])
