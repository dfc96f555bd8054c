"""Pictures inside documents, end to end in lite and full mode: with multimodal processing
on, each stored picture's text is read by OCR into an ``image_ocr`` chunk under the text
chunk that shows it, and Search finds that text chunk for what only the picture says; the
round ends completed with a step per picture under its multimodal stage. With it off, the
stage is skipped as before."""

from __future__ import annotations

import io
import time
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import (
    OPEN,
    ROOT,
    chunk_ids,
    done,
    index_rows,
    recording,
    root_closed,
    running,
)
from tests.e2e.stacks import Stack
from tests.support.recall_pictures import picture_png
from tests.support.waiting import wait_until

# Only the pictures say this: the documents' text is about something else.
PICTURE_LINES = ("The lighthouse keeper", "feeds seventeen walruses")
QUESTION = "how many walruses does the lighthouse keeper feed"
TEXT = (
    "Quarterly planning notes for the garden committee.",
    "The committee agreed to replant the rose beds before spring.",
    "Watering schedules are posted on the shed door every Monday.",
)


# Enough pictures that the images are still being read when a test steps in.
MANY = 8
STOPPED_WITHIN_S = 30.0


def _docx(path: Path, pictures: int = 1) -> Path:
    document = docx.Document()
    document.add_heading("Garden committee", level=1)
    document.add_paragraph(TEXT[0])
    document.add_picture(io.BytesIO(picture_png(PICTURE_LINES)), width=Inches(4))
    for n in range(2, pictures + 1):
        lines = (f"Picture number {n}", f"shows {n * 7} pelicans")
        document.add_picture(io.BytesIO(picture_png(lines)), width=Inches(4))
    for line in TEXT[1:]:
        document.add_paragraph(line)
    document.save(str(path))
    return path


def _pdf(path: Path) -> Path:
    page = canvas.Canvas(str(path), pagesize=A4)
    y = 780
    for line in TEXT:
        page.drawString(60, y, line)
        y -= 20
    page.drawImage(
        ImageReader(io.BytesIO(picture_png(PICTURE_LINES))),
        60,
        420,
        width=400,
        preserveAspectRatio=True,
        anchor="sw",
    )
    page.showPage()
    page.save()
    return path


def _kb(client: SluiceClient, name: str) -> v1.KnowledgeBase:
    return client.create_knowledge_base(name)


@pytest.mark.parametrize("build", [_docx, _pdf], ids=["docx", "pdf"])
def test_a_fact_only_in_a_picture_is_found_through_its_text_chunk(
    client: SluiceClient, tmp_path: Path, build: object
) -> None:
    assert callable(build)
    path = build(tmp_path / ("notes." + ("docx" if build is _docx else "pdf")))
    kb = _kb(client, f"pictures-{path.suffix[1:]}")
    knowledge = client.upload_file(kb.id, path, enable_multimodel=True)
    finished = done(client, knowledge.id)
    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    chunks = list(client.list_chunks(knowledge.id))
    by_id = {c.id: c for c in chunks}
    ocr = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    assert len(ocr) == 1, [(c.chunk_type, c.content[:80]) for c in chunks]
    assert "walruses" in ocr[0].content.lower()
    parent = by_id[ocr[0].parent_chunk_id]
    assert parent.chunk_type == v1.ChunkType.TEXT
    assert "![" in parent.content  # it links the picture
    assert "walruses" not in parent.content.lower()  # the fact is only in the picture

    hits = client.search(QUESTION, [kb.id], top_k=3)
    assert hits and hits[0].chunk_id == parent.id, [(h.chunk_id, h.content[:60]) for h in hits]
    assert hits[0].matched_chunk_id == ocr[0].id
    assert hits[0].matched_chunk_type == v1.ChunkType.IMAGE_OCR
    assert len({h.chunk_id for h in hits}) == len(hits)  # the parent is returned once

    spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
    assert spans["multimodal"].status == v1.SpanStatus.DONE
    assert spans["multimodal.image.1"].status == v1.SpanStatus.DONE
    assert spans["multimodal.image.1"].parent_id == spans["multimodal"].id
    assert spans["postprocess"].status == v1.SpanStatus.SKIPPED
    assert spans["knowledge_processing"].status == v1.SpanStatus.DONE


def test_pictures_are_read_with_the_server_defaults(client: SluiceClient, tmp_path: Path) -> None:
    # No multimodal processing, no model: the local OCR still reads the picture.
    kb = _kb(client, "pictures-defaults")
    knowledge = client.upload_file(kb.id, _docx(tmp_path / "defaults.docx"))
    finished = done(client, knowledge.id)
    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    [ocr] = [c for c in client.list_chunks(knowledge.id) if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    assert "walruses" in ocr.content.lower()
    hits = client.search(QUESTION, [kb.id], top_k=3)
    assert hits[0].matched_chunk_id == ocr.id


def test_with_ocr_off_and_no_vlm_the_stage_is_skipped(client: SluiceClient, tmp_path: Path) -> None:
    # A knowledge base that names a switch takes both as written: OCR off, captions on but
    # no VLM to make them.
    config = v1.KnowledgeBaseConfig(
        image_processing=v1.ImageProcessingConfig(enable_ocr=False, enable_caption=True)
    )
    kb = client.create_knowledge_base("pictures-off", config=config)
    knowledge = client.upload_file(kb.id, _docx(tmp_path / "off.docx"), enable_multimodel=True)
    finished = done(client, knowledge.id)
    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    chunks = list(client.list_chunks(knowledge.id))
    assert not [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
    assert spans["multimodal"].status == v1.SpanStatus.SKIPPED
    assert not [name for name in spans if name.startswith("multimodal.image")]


def _no_open_spans(client: SluiceClient, knowledge_id: str, attempt: int) -> bool:
    return all(s.status not in OPEN for s in client.get_spans(knowledge_id, attempt).spans)


def test_a_cancel_while_the_images_are_read_leaves_nothing_behind(
    stack: Stack, client: SluiceClient, tmp_path: Path
) -> None:
    kb = _kb(client, "pictures-cancel")
    path = _docx(tmp_path / "cancel.docx", pictures=MANY)
    knowledge = client.upload_file(kb.id, path, enable_multimodel=True)
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running("multimodal"), timeout=120)
        client.cancel_parse(knowledge.id)
        spans.wait_for(root_closed, timeout=STOPPED_WITHIN_S)
    wait_until(lambda: _no_open_spans(client, knowledge.id, 1), STOPPED_WITHIN_S, "spans closed")
    # The image tasks still queued or running drop their work; nothing they wrote stays.
    wait_until(
        lambda: (
            not chunk_ids(client, knowledge.id) and index_rows(stack, knowledge.id) in (None, 0)
        ),
        STOPPED_WITHIN_S,
        "the chunks and index rows to go",
    )
    time.sleep(3)
    assert client.get_knowledge(knowledge.id).parse_status == v1.ParseStatus.CANCELLED
    assert not chunk_ids(client, knowledge.id)
    assert index_rows(stack, knowledge.id) in (None, 0)
    assert not client.search("pelicans picture", [kb.id], top_k=5)


def test_a_reparse_while_the_images_are_read_ends_with_the_new_rounds_images_only(
    stack: Stack, client: SluiceClient, tmp_path: Path
) -> None:
    kb = _kb(client, "pictures-reparse")
    path = _docx(tmp_path / "reparse.docx", pictures=MANY)
    knowledge = client.upload_file(kb.id, path, enable_multimodel=True)
    with recording(client, knowledge.id) as spans:
        spans.wait_for(running("multimodal"), timeout=120)
    client.reparse(knowledge.id)
    wait_until(
        lambda: client.get_knowledge(knowledge.id).parse_status == v1.ParseStatus.COMPLETED,
        240,
        "the new round to complete",
    )
    wait_until(lambda: _no_open_spans(client, knowledge.id, 2), 30, "the new round's spans")
    finished = client.get_knowledge(knowledge.id)
    assert finished.attempt == 2
    chunks = list(client.list_chunks(knowledge.id))
    ocr = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    texts = {c.id for c in chunks if c.chunk_type == v1.ChunkType.TEXT}
    assert len(ocr) == MANY and {c.parent_chunk_id for c in ocr} <= texts
    wait_until(lambda: _no_open_spans(client, knowledge.id, 1), STOPPED_WITHIN_S, "old spans")
    second = {s.name: s for s in client.get_spans(knowledge.id, 2).spans}
    assert second[ROOT].status == v1.SpanStatus.DONE
    assert sum(name.startswith("multimodal.image.") for name in second) == MANY
    # The first round's tasks left no rows behind: the index holds the new round's only.
    wait_until(
        lambda: index_rows(stack, knowledge.id) in (None, len(chunks)),
        STOPPED_WITHIN_S,
        "the index to hold the new round's rows only",
    )
    client.delete_knowledge(knowledge.id)
    wait_until(lambda: index_rows(stack, knowledge.id) in (None, 0), 60, "index rows to go")
