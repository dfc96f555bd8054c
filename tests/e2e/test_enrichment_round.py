"""A whole enriched round, end to end in lite and full mode against a real chat-completions
server: a PDF with a picture, uploaded to a knowledge base with multimodal processing (a
VLM), a summary, question generation and auto-tags on. Watched through WatchSpans, it goes
from docreader to the postprocess stage's children and through finalizing to completed;
the picture's OCR text and caption, the summary and the questions are chunks that Search
finds; a reparse leaves only the new round's rows, a delete none at all."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S, done, index_rows, recording
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.e2e.test_multimodal import TEXT, _pdf
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.waiting import wait_until

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
CAPTION = "A watercolour of a lighthouse keeper throwing herring to a walrus colony."
SUMMARY = "Planning notes of a garden committee: rose beds, watering and a lighthouse picture."
# Asked of the chunk about the rose beds, in words that chunk does not use.
QUESTION = "When will the flowering shrubs be put back into the soil?"
TAG = "gardening"
# The summary takes this long, so the round is finalizing for at least as long: a watcher
# is shown a status as the database has it when its state event is read, and subtasks
# answered at once could complete the round before that read.
SUMMARY_S = 1.0


def answer(request: ChatRequest) -> str:
    if request.images:
        return CAPTION
    schema = request.schema or {}
    wanted = set(schema.get("properties", {}))
    if "tags" in wanted:
        return json.dumps({"tags": [TAG]})
    if "questions" in wanted:
        asked = request.texts[-1]
        question = QUESTION if "rose beds" in asked else "What else do these notes record?"
        return json.dumps({"questions": [question]})
    time.sleep(SUMMARY_S)
    return SUMMARY


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"enriched-{request.param}"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=answer) as server:
        yield server


def config(chat: ChatServer) -> v1.KnowledgeBaseConfig:
    def model(name: str) -> v1.ModelConfig:
        return v1.ModelConfig(provider="openai", model=name, base_url=chat.base_url)

    return v1.KnowledgeBaseConfig(
        enable_multimodel=True,
        vlm=v1.VlmConfig(model=model("vision-1")),
        summary=v1.SummaryConfig(enabled=True, model=model("writer-1")),
        question_generation=v1.QuestionGenerationConfig(
            enabled=True, question_count=1, model=model("asker-1")
        ),
        auto_tag=v1.AutoTagConfig(enabled=True),
    )


def of_type(chunks: list[v1.Chunk], kind: v1.ChunkType) -> list[v1.Chunk]:
    return [c for c in chunks if c.chunk_type == kind]


def indexed(chunks: list[v1.Chunk]) -> int:
    """How many index rows these chunks have: every one but a parent."""
    return sum(c.chunk_type != v1.ChunkType.PARENT_TEXT for c in chunks)


def test_an_enriched_round_from_upload_to_delete(
    stack: Stack, chat: ChatServer, tmp_path: Path
) -> None:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(f"enriched-{uuid.uuid4().hex[:8]}", config=config(chat))
        tag = client.create_tag(kb.id, TAG)
        client.create_tag(kb.id, "plumbing")
        upload = client.upload_file(kb.id, _pdf(tmp_path / "notes.pdf"))
        with recording(client, upload.id) as watch:
            finished = done(client, upload.id)
        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
        assert finished.pending_subtasks_count == 0

        statuses = [event.parse_status for _, event in watch.events]
        assert v1.ParseStatus.FINALIZING in statuses
        assert statuses.index(v1.ParseStatus.FINALIZING) < len(statuses) - 1
        spans = watch.spans
        for stage in ("docreader", "chunking", "embedding", "multimodal", "postprocess"):
            assert spans[stage].status == v1.SpanStatus.DONE, stage
        assert spans["multimodal.image.1"].parent_id == spans["multimodal"].id
        for step in ("postprocess.summary", "postprocess.question.1"):
            assert spans[step].status == v1.SpanStatus.DONE, step
            assert spans[step].parent_id == spans["postprocess"].id, step
        assert spans["knowledge_processing"].status == v1.SpanStatus.DONE

        assert finished.summary == SUMMARY
        wait_until(lambda: list(client.get_knowledge(upload.id).tag_ids) == [tag.id], WAIT_S)
        chunks = list(client.list_chunks(upload.id, page_size=500))
        [caption] = of_type(chunks, v1.ChunkType.IMAGE_CAPTION)
        [ocr] = of_type(chunks, v1.ChunkType.IMAGE_OCR)
        assert caption.content == CAPTION and "walruses" in ocr.content.lower()
        questions = of_type(chunks, v1.ChunkType.QUESTION)
        [asked] = [q for q in questions if q.content == QUESTION]
        [roses] = [c for c in chunks if c.id == asked.parent_chunk_id]
        assert TEXT[1] in roses.content
        assert index_rows(stack, upload.id) in (None, indexed(chunks))

        hits = client.search(QUESTION, [kb.id], top_k=3)
        assert (hits[0].chunk_id, hits[0].matched_chunk_type) == (roses.id, v1.ChunkType.QUESTION)
        hits = client.search("walrus colony fed herring", [kb.id], top_k=3)
        assert hits[0].chunk_id == caption.parent_chunk_id

        first_round = {c.id for c in chunks}
        client.reparse(upload.id)
        again = done(client, upload.id)
        assert again.parse_status == v1.ParseStatus.COMPLETED, again.error_message
        assert again.attempt == finished.attempt + 1
        rechunked = list(client.list_chunks(upload.id, page_size=500))
        assert not first_round & {c.id for c in rechunked}
        assert {c.chunk_type for c in rechunked} >= {
            v1.ChunkType.IMAGE_OCR,
            v1.ChunkType.IMAGE_CAPTION,
            v1.ChunkType.SUMMARY,
            v1.ChunkType.QUESTION,
        }
        assert index_rows(stack, upload.id) in (None, indexed(rechunked))
        for query in (QUESTION, SUMMARY, CAPTION):
            found = {h.chunk_id for h in client.search(query, [kb.id], top_k=10)}
            assert not found & first_round, query

        client.delete_knowledge(upload.id)
        with pytest.raises(NotFound):
            client.get_knowledge(upload.id)
        assert index_rows(stack, upload.id) in (None, 0)
        assert client.search(QUESTION, [kb.id], top_k=10) == []
