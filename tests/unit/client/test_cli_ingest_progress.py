"""The per-document progress of `sluice ingest`: a round's stage spans, fed as WatchSpans
events (snapshot, then changes), become stages done out of the round's stages and the
stage under way."""

from __future__ import annotations

from typing import Any

from sluice_client._ingest_progress import DocumentProgress
from sluice_client._proto.google.protobuf import Struct
from sluice_client._proto.sluice import v1

STAGES = [
    ("docreader", v1.Stage.DOCREADER),
    ("chunking", v1.Stage.CHUNKING),
    ("embedding", v1.Stage.EMBEDDING),
    ("multimodal", v1.Stage.MULTIMODAL),
    ("postprocess", v1.Stage.POSTPROCESS),
]
PENDING, RUNNING, DONE = v1.SpanStatus.PENDING, v1.SpanStatus.RUNNING, v1.SpanStatus.DONE


def stage(
    name: str,
    status: v1.SpanStatus,
    *,
    attempt: int = 1,
    input: dict[str, Any] | None = None,
    output: dict[str, Any] | None = None,
) -> v1.Span:
    return v1.Span(
        id=f"{attempt}-{name}",
        attempt=attempt,
        name=name,
        kind=v1.SpanKind.STAGE,
        stage=dict(STAGES)[name],
        status=status,
        input=Struct.from_dict(input or {}),
        output=Struct.from_dict(output or {}),
    )


def event(kind: v1.WatchEventType, *spans: v1.Span, attempt: int = 1) -> v1.WatchSpansResponse:
    return v1.WatchSpansResponse(type=kind, attempt=attempt, spans=list(spans))


def opened(attempt: int = 1) -> v1.WatchSpansResponse:
    """The snapshot of a round just opened: its root running, every stage pending."""
    root = v1.Span(
        id=f"{attempt}-root",
        attempt=attempt,
        name="knowledge_processing",
        kind=v1.SpanKind.ROOT,
        status=RUNNING,
    )
    stages = [stage(name, PENDING, attempt=attempt) for name, _ in STAGES]
    return event(v1.WatchEventType.SNAPSHOT, root, *stages, attempt=attempt)


def test_before_the_round_opens_the_document_is_queued_with_no_total() -> None:
    document = DocumentProgress()
    assert (document.completed, document.total, document.stage) == (0, None, "queued")


def test_the_stages_done_count_out_of_the_rounds_stages_and_the_running_one_is_named() -> None:
    document = DocumentProgress()
    document.update(opened())
    # The root span is not a stage: five stages, none done yet.
    assert (document.completed, document.total, document.stage) == (0, 5, "docreader pending")

    document.update(event(v1.WatchEventType.SPAN, stage("docreader", RUNNING)))
    assert (document.completed, document.total, document.stage) == (0, 5, "docreader")

    document.update(
        event(v1.WatchEventType.SPAN, stage("docreader", DONE), stage("chunking", RUNNING))
    )
    assert (document.completed, document.stage) == (1, "chunking")

    document.update(event(v1.WatchEventType.SPAN, stage("chunking", DONE)))
    assert (document.completed, document.stage) == (2, "embedding pending")


def test_the_embedding_stage_shows_its_chunks_embedded_out_of_its_chunks() -> None:
    document = DocumentProgress()
    document.update(opened())
    document.update(
        event(
            v1.WatchEventType.SPAN,
            stage("docreader", DONE),
            stage("chunking", DONE),
            stage("embedding", RUNNING, input={"chunks": 40}),
        )
    )
    assert document.stage == "embedding"  # no batch embedded yet: nothing to count

    embedding = stage("embedding", RUNNING, input={"chunks": 40}, output={"chunks_embedded": 12})
    document.update(event(v1.WatchEventType.SPAN, embedding))
    assert (document.completed, document.total, document.stage) == (2, 5, "embedding 12/40")


def test_skipped_stages_count_as_done_and_a_finished_round_is_done() -> None:
    document = DocumentProgress()
    document.update(opened())
    ended = [stage(name, DONE) for name, _ in STAGES if name != "multimodal"]
    skipped = stage("multimodal", v1.SpanStatus.SKIPPED, output={"reason": "not enabled"})
    document.update(event(v1.WatchEventType.SPAN, *ended, skipped))
    assert (document.completed, document.total, document.stage) == (5, 5, "done")


def test_a_failed_stage_is_not_done_and_is_named_with_its_status() -> None:
    document = DocumentProgress()
    document.update(opened())
    document.update(event(v1.WatchEventType.SPAN, stage("docreader", v1.SpanStatus.FAILED)))
    assert (document.completed, document.stage) == (0, "docreader failed")


def test_a_retry_starts_the_count_again_from_its_own_round() -> None:
    document = DocumentProgress()
    document.update(opened())
    document.update(event(v1.WatchEventType.SPAN, stage("docreader", DONE)))
    assert document.completed == 1

    document.update(opened(attempt=2))
    assert (document.completed, document.total) == (0, 5)
    # A late change of the old round does not count for the new one.
    document.update(event(v1.WatchEventType.SPAN, stage("chunking", DONE, attempt=2), attempt=2))
    late = event(v1.WatchEventType.SPAN, stage("embedding", DONE, attempt=1), attempt=2)
    document.update(late)
    assert (document.completed, document.total) == (1, 5)
