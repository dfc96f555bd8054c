"""A span message is bounded whatever its stored fields hold, so GetSpans is too."""

from __future__ import annotations

from sluice.v1 import knowledge_pb2

from server.api import convert
from server.api.budget import DEFAULT_CLIENT_MESSAGE_BYTES


def _span(name: str, heavy: str) -> dict[str, object]:
    return {
        "id": name,
        "knowledge_id": "k",
        "attempt": 1,
        "name": name,
        "status": "failed",
        "input": {"file_name": heavy, "chunk_size": 512},
        "output": {f"meta_{n}": heavy for n in range(500)},
        "error_message": heavy,
    }


def test_span_text_is_cut_and_numbers_are_kept() -> None:
    heavy = "я" * (1 << 20)
    span = convert.span(_span("docreader", heavy))
    assert len(span.error_message) == convert.SPAN_MESSAGE_MAX_CHARS
    assert span.error_message.endswith("…")
    assert len(span.output.fields) == convert.SPAN_FIELDS_MAX
    assert len(span.input.fields["file_name"].string_value) == convert.SPAN_VALUE_MAX_CHARS
    assert span.input.fields["chunk_size"].number_value == 512
    assert convert.span(_span("short", "ok")).error_message == "ok"


def test_a_get_spans_response_of_heavy_spans_fits_a_default_client() -> None:
    heavy = "字" * (4 << 20)
    names = [
        "knowledge_processing",
        "docreader",
        "chunking",
        "embedding",
        "multimodal",
        "postprocess",
        "postprocess.datatable",
        "postprocess.summary",
    ]
    response = knowledge_pb2.GetSpansResponse(
        knowledge_id="k", attempt=1, spans=[convert.span(_span(n, heavy)) for n in names]
    )
    assert response.ByteSize() < DEFAULT_CLIENT_MESSAGE_BYTES // 4
