"""Editing a processed knowledge over the real API, in lite and full mode: a text chunk's
content is re-embedded and re-indexed (keyword search finds its new words, with the title
and heading breadcrumbs as the pipeline indexes them, and no longer its old ones), a chunk
disabled drops out of Search and comes back when enabled, metadata is replaced within the
upload's limits; an embedding model that is down leaves the chunk as it was, and a
knowledge still being processed cannot be edited."""

from __future__ import annotations

import io
import time
import uuid
from collections.abc import Iterator

import pytest
from sluice_client import FailedPrecondition, InvalidArgument, SluiceClient, Unavailable
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from tests.e2e.lifecycle_support import WAIT_S, done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}  # the embedding server these tests start
HANDBOOK = """# Pump room

## Resetting

To reset the pump, hold the red button for five seconds.

## Cleaning

The filter basket is rinsed with warm water every Friday.
"""
KEYWORD = v1.SearchMode.KEYWORD


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"edits-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def _handbook(
    client: SluiceClient, embedding: v1.ModelConfig | None = None
) -> tuple[v1.KnowledgeBase, v1.Knowledge]:
    """The handbook processed with one chunk per section."""
    chunking = v1.ChunkingConfig(chunk_size=80, chunk_overlap=0)
    config = v1.KnowledgeBaseConfig(chunking=chunking, embedding=embedding)
    kb = client.create_knowledge_base(f"edits-{uuid.uuid4().hex[:8]}", config=config)
    knowledge = client.upload_file(kb.id, io.BytesIO(HANDBOOK.encode()), file_name="pumps.md")
    return kb, done(client, knowledge.id)


def _chunk_with(client: SluiceClient, knowledge_id: str, words: str) -> v1.Chunk:
    [chunk] = [c for c in client.list_chunks(knowledge_id) if words in c.content]
    return chunk


def _found(client: SluiceClient, kb: v1.KnowledgeBase, query: str) -> set[str]:
    return {hit.chunk_id for hit in client.search(query, [kb.id], top_k=20, mode=KEYWORD)}


def test_an_edited_chunk_is_found_by_its_new_words_only(client: SluiceClient) -> None:
    kb, knowledge = _handbook(client)
    chunk = _chunk_with(client, knowledge.id, "red button")
    assert chunk.id in _found(client, kb, "red button")

    edited = client.update_chunk(chunk.id, "Turn the blue lever clockwise to restart it.")

    assert (edited.id, edited.content) == (chunk.id, "Turn the blue lever clockwise to restart it.")
    assert edited.is_enabled
    assert _chunk_with(client, knowledge.id, "blue lever").id == chunk.id
    assert chunk.id in _found(client, kb, "blue lever clockwise")
    assert chunk.id not in _found(client, kb, "red button")
    # Indexed as the pipeline indexes a chunk: the title and breadcrumbs go with the text.
    assert chunk.id in _found(client, kb, "resetting")
    vector = client.search("restart with the lever", [kb.id], mode=v1.SearchMode.VECTOR)
    assert vector[0].chunk_id == chunk.id
    # The same text again changes nothing.
    assert client.update_chunk(chunk.id, edited.content).content == edited.content


def test_a_disabled_chunk_leaves_search_until_it_is_enabled(client: SluiceClient) -> None:
    kb, knowledge = _handbook(client)
    chunk = _chunk_with(client, knowledge.id, "filter basket")

    assert client.set_chunk_enabled(chunk.id, False).is_enabled is False
    assert _chunk_with(client, knowledge.id, "filter basket").is_enabled is False
    assert chunk.id not in _found(client, kb, "filter basket")
    # An edit of a disabled chunk stays out of Search.
    client.update_chunk(chunk.id, "The strainer is rinsed every Friday.")
    assert chunk.id not in _found(client, kb, "strainer")

    assert client.set_chunk_enabled(chunk.id, True).is_enabled is True
    assert chunk.id in _found(client, kb, "strainer")


def test_chunk_edits_are_checked(client: SluiceClient) -> None:
    _, knowledge = _handbook(client)
    chunk = _chunk_with(client, knowledge.id, "red button")
    for content, description in (("  \n", "must not be blank"), ("x" * 16_385, "over 16384")):
        with pytest.raises(InvalidArgument) as refused:
            client.update_chunk(chunk.id, content)
        [(field, text)] = refused.value.field_violations
        assert field == "content" and description in text
    assert _chunk_with(client, knowledge.id, "red button").content == chunk.content


def test_only_text_chunks_can_be_edited(client: SluiceClient) -> None:
    kb = client.create_knowledge_base(f"table-{uuid.uuid4().hex[:8]}")
    table = b"pump,pressure\nP1,4.5\nP2,3.9\n"
    knowledge = done(client, client.upload_file(kb.id, io.BytesIO(table), file_name="p.csv").id)
    deadline = time.monotonic() + WAIT_S
    profiles: list[v1.Chunk] = []
    while not profiles and time.monotonic() < deadline:
        chunks = client.list_chunks(knowledge.id)
        profiles = [c for c in chunks if c.chunk_type == v1.ChunkType.TABLE_SUMMARY]
        time.sleep(0.2)
    assert profiles, "the table summary was written"

    with pytest.raises(FailedPrecondition) as refused:
        client.update_chunk(profiles[0].id, "A table of pumps.")
    assert "only text chunks" in refused.value.message
    assert client.set_chunk_enabled(profiles[0].id, False).is_enabled is False


def test_an_embedding_outage_leaves_the_chunk_as_it_was(client: SluiceClient) -> None:
    with EmbeddingServer() as server:
        embedding = v1.ModelConfig(
            provider="openai", model=server.model, base_url=server.url("/v1"), dimensions=DIMENSION
        )
        kb, knowledge = _handbook(client, embedding)
        chunk = _chunk_with(client, knowledge.id, "red button")
        server.fail = lambda number: 503

        with pytest.raises(Unavailable) as down:
            client.update_chunk(chunk.id, "Turn the blue lever.")

        assert "embedding model" in down.value.message
        assert _chunk_with(client, knowledge.id, "red button").content == chunk.content
        assert chunk.id in _found(client, kb, "red button")
        assert _found(client, kb, "blue lever") == set()


def test_a_knowledge_being_processed_cannot_be_edited(client: SluiceClient) -> None:
    with EmbeddingServer(delay_s=1.0) as server:
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(chunk_size=60, chunk_overlap=0),
            embedding=v1.ModelConfig(
                provider="openai",
                model=server.model,
                base_url=server.url("/v1"),
                dimensions=DIMENSION,
            ),
        )
        kb = client.create_knowledge_base(f"busy-{uuid.uuid4().hex[:8]}", config=config)
        text = "\n\n".join(f"Entry {n}: the gauge of pump {n} read fine." for n in range(40))
        knowledge = client.create_manual(kb.id, "Gauges", text)
        deadline = time.monotonic() + WAIT_S
        chunks: list[v1.Chunk] = []
        while not chunks and time.monotonic() < deadline:
            chunks = list(client.list_chunks(knowledge.id))
            time.sleep(0.1)
        assert client.get_knowledge(knowledge.id).parse_status == v1.ParseStatus.PROCESSING

        with pytest.raises(FailedPrecondition) as busy:
            client.update_chunk(chunks[0].id, "Edited.")
        assert "processing" in busy.value.message
        with pytest.raises(FailedPrecondition):
            client.set_chunk_enabled(chunks[0].id, False)
        client.cancel_parse(knowledge.id)


def test_metadata_is_replaced_within_the_upload_limits(client: SluiceClient) -> None:
    _, knowledge = _handbook(client)

    updated = client.update_knowledge_metadata(knowledge.id, {"owner": "ops", "site": "east"})

    assert updated.metadata == {"owner": "ops", "site": "east"}
    assert client.get_knowledge(knowledge.id).metadata == {"owner": "ops", "site": "east"}
    with pytest.raises(InvalidArgument) as refused:
        client.update_knowledge_metadata(knowledge.id, {"owner": "x" * 5000})
    assert refused.value.field_violations[0][0] == "metadata['owner']"
    assert client.get_knowledge(knowledge.id).metadata == {"owner": "ops", "site": "east"}
    assert client.update_knowledge_metadata(knowledge.id, {}).metadata == {}


def test_the_cli_edits_chunks_and_metadata(
    client: SluiceClient, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    kb, knowledge = _handbook(client)
    chunk = _chunk_with(client, knowledge.id, "red button")
    target = ["--target", stack.target]

    assert cli([*target, "chunk", "edit", chunk.id, "--content", "Pull the green cord."]) == 0
    assert "Pull the green cord." in capsys.readouterr().out
    assert cli([*target, "chunk", "disable", chunk.id]) == 0
    capsys.readouterr()
    assert chunk.id not in _found(client, kb, "green cord")
    assert cli([*target, "chunk", "enable", chunk.id]) == 0
    capsys.readouterr()
    assert chunk.id in _found(client, kb, "green cord")
    assert cli([*target, "set-metadata", knowledge.id, "owner=ops", "note=a=b"]) == 0
    capsys.readouterr()
    assert client.get_knowledge(knowledge.id).metadata == {"owner": "ops", "note": "a=b"}
