"""Question generation end to end in lite mode against a real chat-completions server: a
knowledge base with question generation on, a Markdown upload of three sections. The round
goes through finalizing while its question batch runs and then completes; ListChunks
shows each question under its section; a Search phrased like a question, in words the
section does not use, returns the section itself, found through the question. Reparse and
Delete leave none of the old questions to find."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import InvalidArgument, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S, done
from tests.e2e.stacks import Stack, lite_stack
from tests.support.openai_chat_server import ChatRequest, ChatServer

# The chat server lets the test's own requests in (the SSRF rules refuse loopback).
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
SECTIONS = {
    "ferry": "The Quellbrook ferry leaves pier nine at dawn with the island's mail sacks.",
    "bakery": "Marten's bakery on Lantern Street sells rye loaves until the noon bell.",
    "lighthouse": "The Orsay lighthouse lamp is cleaned by its keeper every third evening.",
}
# What the model asks of each section: words the section does not use.
QUESTIONS = {
    "ferry": ["When does the boat carrying letters depart?", "Which vessel transports post?"],
    "bakery": ["Where can I purchase dark bread?", "What shop offers baked goods?"],
    "lighthouse": ["How often is the beacon maintained?", "Who polishes the coastal light?"],
}


class QuestionModel:
    """Answers each section's questions, holding the answers until the test has seen the
    knowledge finalizing."""

    def __init__(self) -> None:
        self.seen_finalizing = threading.Event()

    def answer(self, request: ChatRequest) -> str:
        self.seen_finalizing.wait(WAIT_S)
        topic = next(t for t, text in SECTIONS.items() if text in request.texts[-1])
        return json.dumps({"questions": QUESTIONS[topic]})


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("questions-lite"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def questions_config(chat: ChatServer, count: int = 2) -> v1.QuestionGenerationConfig:
    return v1.QuestionGenerationConfig(
        enabled=True,
        question_count=count,
        model=v1.ModelConfig(provider="openai", model="questioner", base_url=chat.base_url),
    )


def document(path: Path) -> Path:
    parts = ["# Harbour town notes", ""]
    for topic, text in SECTIONS.items():
        parts += [f"## {topic.title()}", "", text, ""]
    path.write_text("\n".join(parts))
    return path


def wait_for_status(client: SluiceClient, knowledge_id: str, status: v1.ParseStatus) -> None:
    deadline = time.monotonic() + WAIT_S
    while client.get_knowledge(knowledge_id).parse_status != status:
        assert time.monotonic() < deadline, f"never {status}"
        time.sleep(0.05)


def test_questions_find_their_chunk_and_go_with_it(client: SluiceClient, tmp_path: Path) -> None:
    model = QuestionModel()
    with ChatServer(answer=model.answer) as chat:
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(chunk_size=120, chunk_overlap=0),
            question_generation=questions_config(chat),
        )
        kb = client.create_knowledge_base(f"questions-{uuid.uuid4().hex[:8]}", config=config)
        upload = client.upload_file(kb.id, document(tmp_path / "notes.md"))
        wait_for_status(client, upload.id, v1.ParseStatus.FINALIZING)
        model.seen_finalizing.set()
        finished = done(client, upload.id)

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    assert finished.pending_subtasks_count == 0
    chunks = list(client.list_chunks(upload.id, page_size=100))
    texts = {c.id: c for c in chunks if c.chunk_type == v1.ChunkType.TEXT}
    questions = [c for c in chunks if c.chunk_type == v1.ChunkType.QUESTION]
    assert len(questions) == 6
    for question in questions:
        source = texts[question.parent_chunk_id].content
        topic = next(t for t, text in SECTIONS.items() if text in source)
        assert question.content in QUESTIONS[topic]

    [hit, *_] = client.search("which boat carries the letters", [kb.id], top_k=3)
    ferry = next(c for c in texts.values() if SECTIONS["ferry"] in c.content)
    assert hit.chunk_id == ferry.id and SECTIONS["ferry"] in hit.content
    assert hit.matched_chunk_type == v1.ChunkType.QUESTION
    assert hit.matched_content in QUESTIONS["ferry"]

    spans = {s.name: s for s in client.get_spans(upload.id).spans}
    step = spans["postprocess.question.1"]
    assert (step.status, step.parent_id) == (v1.SpanStatus.DONE, spans["postprocess"].id)
    assert spans["knowledge_processing"].status == v1.SpanStatus.DONE

    # A reparse without questions: the old round's are neither listed nor found.
    off = v1.ProcessConfig(question_generation=v1.QuestionGenerationConfig(enabled=False))
    client.reparse(upload.id, process_config=off)
    again = done(client, upload.id)
    assert (again.attempt, again.parse_status) == (2, v1.ParseStatus.COMPLETED)
    kinds = {c.chunk_type for c in client.list_chunks(upload.id, page_size=100)}
    assert v1.ChunkType.QUESTION not in kinds
    old = {q.id for q in questions}
    found = client.search("which boat carries the letters", [kb.id], top_k=10)
    assert old.isdisjoint({h.chunk_id for h in found} | {h.matched_chunk_id for h in found})

    client.delete_knowledge(upload.id)
    assert [h for h in client.search("boat letters bread beacon", [kb.id], top_k=10)] == []


def test_a_question_count_out_of_range_is_refused(client: SluiceClient) -> None:
    with ChatServer() as chat:
        config = v1.KnowledgeBaseConfig(question_generation=questions_config(chat, count=11))
        with pytest.raises(InvalidArgument) as refused:
            client.create_knowledge_base(f"too-many-{uuid.uuid4().hex[:8]}", config=config)
    [(field, _)] = refused.value.field_violations
    assert field == "config.question_generation.question_count"


def test_a_question_about_a_child_chunk_finds_its_parent(
    client: SluiceClient, tmp_path: Path
) -> None:
    """Parent/child chunking: questions are asked about the children (the text chunks), and
    a question's hit returns what a hit on its child would, the parent."""
    model = QuestionModel()
    model.seen_finalizing.set()
    with ChatServer(answer=model.answer) as chat:
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(
                chunk_size=80,
                chunk_overlap=0,
                enable_parent_child=True,
                parent_chunk_size=400,
            ),
            question_generation=questions_config(chat),
        )
        kb = client.create_knowledge_base(f"pc-questions-{uuid.uuid4().hex[:8]}", config=config)
        upload = client.upload_file(kb.id, document(tmp_path / "notes.md"))
        finished = done(client, upload.id)

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    chunks = {c.id: c for c in client.list_chunks(upload.id, page_size=100)}
    questions = [c for c in chunks.values() if c.chunk_type == v1.ChunkType.QUESTION]
    assert questions and all(
        chunks[q.parent_chunk_id].chunk_type == v1.ChunkType.TEXT for q in questions
    )
    [hit, *_] = client.search("which boat carries the letters", [kb.id], top_k=3)
    assert chunks[hit.chunk_id].chunk_type == v1.ChunkType.PARENT_TEXT
    assert SECTIONS["ferry"] in hit.content
    assert hit.matched_chunk_type == v1.ChunkType.QUESTION
