"""Pictures inside documents, end to end in lite and full mode: with multimodal processing
on, each stored picture's text is read by OCR into an ``image_ocr`` chunk under the text
chunk that shows it, and Search finds that text chunk for what only the picture says; the
round ends completed with a step per picture under its multimodal stage. With it off, the
stage is skipped as before."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from reportlab.lib.pagesizes import A4
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.support.recall_pictures import picture_png

# Only the pictures say this: the documents' text is about something else.
PICTURE_LINES = ("The lighthouse keeper", "feeds seventeen walruses")
QUESTION = "how many walruses does the lighthouse keeper feed"
TEXT = (
    "Quarterly planning notes for the garden committee.",
    "The committee agreed to replant the rose beds before spring.",
    "Watering schedules are posted on the shed door every Monday.",
)


def _docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Garden committee", level=1)
    document.add_paragraph(TEXT[0])
    document.add_picture(io.BytesIO(picture_png(PICTURE_LINES)), width=Inches(4))
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


def test_with_multimodal_processing_off_the_stage_is_skipped(
    client: SluiceClient, tmp_path: Path
) -> None:
    kb = _kb(client, "pictures-off")
    knowledge = client.upload_file(kb.id, _docx(tmp_path / "off.docx"), enable_multimodel=False)
    finished = done(client, knowledge.id)
    assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
    chunks = list(client.list_chunks(knowledge.id))
    assert not [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
    spans = {s.name: s for s in client.get_spans(knowledge.id).spans}
    assert spans["multimodal"].status == v1.SpanStatus.SKIPPED
    assert not [name for name in spans if name.startswith("multimodal.image")]
