"""The enrichment after indexing, end to end in lite and full mode against a real
chat-completions server: a docx with a picture, its knowledge base naming a VLM (with a
description language and instructions) and a summary model. The picture gets OCR text and
a caption as children of its text chunk, the document gets a summary; the round goes
through finalizing to completed, the summary a step under postprocess, and Search finds
the text chunk for what only the caption says and the summary for what the document is
about. With image vectors on and an embedding endpoint that takes pictures, the picture
itself is embedded as an ``image_vector`` child, found by what only its vector means."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_chat_server import ChatRequest, ChatServer
from tests.support.openai_embeddings import EmbeddingServer
from tests.support.recall_pictures import picture_png

CAPTION = "A hand-drawn chart of the Quillmark orchard showing fifty-eight pear trees."
SUMMARY = "Minutes of the garden committee: the rose beds are replanted before spring."
LANGUAGE = "English"
INSTRUCTIONS = "Name every plant you can see."
# Where the multimodal embedding endpoint puts the picture: no text of the document says it.
PICTURE_MEANS = "a herd of zebras grazing beside a river"
# The chat server lets the test's own requests in (the SSRF rules refuse loopback).
ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}


def answer(request: ChatRequest) -> str:
    return CAPTION if request.images else SUMMARY


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    with ChatServer(answer=answer) as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"enrichment-{request.param}"), extra_env=ENV) as s:
        yield s


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


def model(chat: ChatServer, name: str) -> v1.ModelConfig:
    return v1.ModelConfig(provider="openai", model=name, base_url=chat.base_url)


def document(path: Path) -> Path:
    page = docx.Document()
    page.add_heading("Garden committee", level=1)
    page.add_paragraph("The committee agreed to replant the rose beds before spring.")
    page.add_picture(io.BytesIO(picture_png(("Orchard plan", "row A to row F"))), Inches(4))
    page.add_paragraph("Watering schedules are posted on the shed door every Monday.")
    page.save(str(path))
    return path


def test_a_picture_gets_a_caption_and_the_document_a_summary(
    client: SluiceClient, chat: ChatServer, tmp_path: Path
) -> None:
    config = v1.KnowledgeBaseConfig(
        vlm=v1.VlmConfig(
            model=model(chat, "vision-1"),
            description_language=LANGUAGE,
            custom_instructions=INSTRUCTIONS,
        ),
        summary=v1.SummaryConfig(enabled=True, model=model(chat, "writer-1")),
    )
    kb = client.create_knowledge_base(f"enrich-{uuid.uuid4().hex[:8]}", config=config)
    upload = client.upload_file(kb.id, document(tmp_path / "minutes.docx"), enable_multimodel=True)
    finished = done(client, upload.id)

    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    assert finished.summary_status == v1.SummaryStatus.COMPLETED
    assert finished.summary == SUMMARY
    chunks = list(client.list_chunks(upload.id))
    [caption] = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_CAPTION]
    [ocr] = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    assert caption.content == CAPTION and "orchard" in ocr.content.lower()
    assert caption.parent_chunk_id == ocr.parent_chunk_id
    [summary] = [c for c in chunks if c.chunk_type == v1.ChunkType.SUMMARY]
    assert summary.content == SUMMARY

    [vision] = [r for r in chat.log() if r.body["model"] == "vision-1"]
    assert LANGUAGE in vision.texts[-1] and INSTRUCTIONS in vision.texts[-1]
    [(mime, picture)] = vision.images
    assert mime == "image/png" and picture.startswith(b"\x89PNG")
    [writer] = [r for r in chat.log() if r.body["model"] == "writer-1"]
    assert "replant the rose beds" in writer.texts[-1]

    hits = client.search("Quillmark pear trees", [kb.id], top_k=3)
    assert hits[0].chunk_id == caption.parent_chunk_id
    assert hits[0].matched_chunk_type == v1.ChunkType.IMAGE_CAPTION
    assert hits[0].matched_content == CAPTION
    minutes = client.search("minutes of the garden committee", [kb.id], top_k=3)
    assert summary.id in [h.chunk_id for h in minutes]

    spans = {s.name: s for s in client.get_spans(upload.id).spans}
    assert spans["postprocess"].status == v1.SpanStatus.DONE
    step = spans["postprocess.summary"]
    assert (step.status, step.parent_id) == (v1.SpanStatus.DONE, spans["postprocess"].id)
    assert spans["multimodal.image.1"].status == v1.SpanStatus.DONE
    assert spans["knowledge_processing"].status == v1.SpanStatus.DONE


def test_a_picture_is_found_by_its_own_vector(client: SluiceClient, tmp_path: Path) -> None:
    with EmbeddingServer(image_text=lambda _: PICTURE_MEANS) as embeddings:
        config = v1.KnowledgeBaseConfig(
            embedding=v1.ModelConfig(
                provider="openai",
                model=embeddings.model,
                base_url=embeddings.base_url,
                dimensions=8,
                accepts_images=True,
            ),
            image_processing=v1.ImageProcessingConfig(image_vector_enabled=True),
        )
        kb = client.create_knowledge_base(f"vectors-{uuid.uuid4().hex[:8]}", config=config)
        upload = client.upload_file(kb.id, document(tmp_path / "minutes.docx"))
        finished = done(client, upload.id)
        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message

        chunks = list(client.list_chunks(upload.id))
        [picture] = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_VECTOR]
        [ocr] = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
        assert picture.parent_chunk_id == ocr.parent_chunk_id
        assert picture.content == ocr.content  # no caption: the OCR text is shown
        assert [len(r.images) for r in embeddings.log() if r.images] == [1]
        hits = client.search(PICTURE_MEANS, [kb.id], top_k=3)
        assert hits[0].chunk_id == picture.parent_chunk_id
        assert hits[0].matched_chunk_type == v1.ChunkType.IMAGE_VECTOR
        spans = {s.name: s for s in client.get_spans(upload.id).spans}
        output = spans["multimodal"].output
        assert output is not None and output.to_dict()["image_vector_chunks"] == 1
