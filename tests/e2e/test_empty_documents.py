"""Empty documents: refused or failed with an "empty document" reason, never filled in.

A 0-byte upload is refused before anything is kept; a file that has bytes but nothing to
index (whitespace, a deck of blank slides) fails at the docreader stage at once, without
retries and without a chunk.
"""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import pptx
import pytest
from sluice_client import InvalidArgument, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import stored_files
from tests.e2e.stacks import Stack

WAIT_S = 180


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"empty-{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize("file_name", ["nothing.txt", "nothing.ppt", "nothing.pdf"])
def test_a_zero_byte_upload_is_refused_and_keeps_nothing(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase, file_name: str
) -> None:
    before = stored_files(stack)
    with pytest.raises(InvalidArgument, match="empty document") as refused:
        client.upload_file(kb.id, io.BytesIO(b""), file_name=file_name)
    assert refused.value.field_violations == [("data", "empty document: the file has no bytes")]
    assert stored_files(stack) == before
    assert [k.file_name for k in client.list_knowledge(kb.id)] == []


def _blank_deck(path: Path) -> bytes:
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[6])
    deck.save(str(path))
    return path.read_bytes()


@pytest.mark.parametrize("file_name", ["spaces.md", "spaces.txt", "blank.pptx"])
def test_a_file_with_nothing_to_index_fails_as_an_empty_document(
    client: SluiceClient, kb: v1.KnowledgeBase, tmp_path: Path, file_name: str
) -> None:
    body = _blank_deck(tmp_path / file_name) if file_name.endswith(".pptx") else b" \n\t\n  \r\n"
    knowledge = client.upload_file(kb.id, io.BytesIO(body), file_name=file_name)
    done = client.wait_until_done(knowledge.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.FAILED
    assert f"empty document: {file_name} has no text or images to index" in done.error_message
    span = next(s for s in client.get_spans(knowledge.id).spans if s.name == "docreader")
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "EMPTY_DOCUMENT")
    assert "will retry" not in span.error_message, "an empty file stays empty"
    assert list(client.list_chunks(knowledge.id)) == []
