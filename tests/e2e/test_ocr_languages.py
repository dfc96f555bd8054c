"""OCR languages from the knowledge base and per upload, end to end: the configured
languages reach the docreader, an upload's replace the knowledge base's, a malformed code is
refused at the API and one the docreader lacks fails the document with its reason."""

# Cyrillic letters in strings are the point of these tests.

from __future__ import annotations

import io
import uuid

import pytest
from sluice_client import InvalidArgument, SluiceClient
from sluice_client._proto.sluice import v1

from tests.support.ocr_images import RUSSIAN, glyph_font_path, png, similarity, text_image

WAIT_S = 240


def _kb(client: SluiceClient, *languages: str) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(ocr=v1.OcrConfig(languages=list(languages)))
    return client.create_knowledge_base(f"ocr-{uuid.uuid4().hex[:8]}", config=config)


def _text(client: SluiceClient, knowledge_id: str) -> str:
    done = client.wait_until_done(knowledge_id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    return " ".join(chunk.content for chunk in client.list_chunks(knowledge_id))


def _ocr_part(text: str) -> str:
    """The chunk text without the image link the picture itself becomes."""
    return " ".join(word for word in text.split() if "](" not in word and "![" not in word)


def test_the_knowledge_bases_languages_are_used_and_an_upload_replaces_them(
    client: SluiceClient,
) -> None:
    image = png(text_image(glyph_font_path(), RUSSIAN))
    # Two knowledge bases: one of them would refuse the same file twice.
    english, other_english = _kb(client, "eng"), _kb(client, "eng")

    as_configured = client.upload_file(english.id, io.BytesIO(image), file_name="a.png")
    overridden = client.upload_file(
        other_english.id,
        io.BytesIO(image),
        file_name="b.png",
        process_config=v1.ProcessConfig(ocr=v1.OcrConfig(languages=["rus"])),
    )

    # Read as English, as the knowledge base says, the Russian picture is Latin letters.
    assert similarity(_ocr_part(_text(client, as_configured.id)), RUSSIAN) < 0.5
    assert similarity(_ocr_part(_text(client, overridden.id)), RUSSIAN) >= 0.9


def test_a_language_the_docreader_lacks_fails_the_document_with_its_reason(
    client: SluiceClient,
) -> None:
    kb = _kb(client, "xyz")
    image = png(text_image(glyph_font_path(), RUSSIAN))

    knowledge = client.upload_file(kb.id, io.BytesIO(image), file_name="scan.png")
    done = client.wait_until_done(knowledge.id, WAIT_S)

    assert done.parse_status == v1.ParseStatus.FAILED
    assert "OCR language 'xyz' is not installed on this docreader" in done.error_message
    assert "will retry" not in done.error_message


def test_malformed_codes_are_refused_with_a_field_violation_each(client: SluiceClient) -> None:
    with pytest.raises(InvalidArgument) as refused:
        _kb(client, "eng+rus", "osd", "rus", "rus")
    assert [field for field, _ in refused.value.field_violations] == [
        "config.ocr.languages[0]",
        "config.ocr.languages[1]",
        "config.ocr.languages[3]",
    ]

    kb = _kb(client)
    with pytest.raises(InvalidArgument) as refused:
        client.upload_file(
            kb.id,
            io.BytesIO(b"# x"),
            file_name="doc.md",
            process_config=v1.ProcessConfig(ocr=v1.OcrConfig(languages=["chi sim"])),
        )
    assert [field for field, _ in refused.value.field_violations] == [
        "header.process_config.ocr.languages[0]"
    ]
