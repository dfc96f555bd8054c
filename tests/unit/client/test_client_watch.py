"""watch_spans streams span events; wait_until_done follows them across reconnects."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc
from sluice_client import NotFound, SluiceClient, SluiceError, v1

from .conftest import Serve

SNAPSHOT = knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT
SPAN = knowledge_pb2.WATCH_EVENT_TYPE_SPAN
END = knowledge_pb2.WATCH_EVENT_TYPE_END


def span(name: str, status: common_pb2.SpanStatus, **output: float) -> knowledge_pb2.Span:
    result = knowledge_pb2.Span(
        knowledge_id="k-1", attempt=1, name=name, kind=common_pb2.SPAN_KIND_STAGE, status=status
    )
    if output:
        result.output.update(output)
    return result


def event(
    kind: knowledge_pb2.WatchEventType,
    *spans: knowledge_pb2.Span,
    parse_status: common_pb2.ParseStatus = common_pb2.PARSE_STATUS_PROCESSING,
) -> knowledge_pb2.WatchSpansResponse:
    return knowledge_pb2.WatchSpansResponse(
        type=kind, attempt=1, spans=spans, parse_status=parse_status
    )


@dataclass
class Script:
    """What one WatchSpans call does: send `events`, then end as `ending` says."""

    events: list[knowledge_pb2.WatchSpansResponse]
    ending: str = "close"  # "close", "hang" (until the client goes away) or a StatusCode name
    delay: float = 0.0


@dataclass
class ScriptedKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    scripts: list[Script]
    final: knowledge_pb2.Knowledge = field(
        default_factory=lambda: knowledge_pb2.Knowledge(
            id="k-1", parse_status=common_pb2.PARSE_STATUS_COMPLETED
        )
    )
    requests: list[knowledge_pb2.WatchSpansRequest] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    client_gone: threading.Event = field(default_factory=threading.Event)

    def WatchSpans(
        self, request: knowledge_pb2.WatchSpansRequest, context: grpc.ServicerContext
    ) -> Iterator[knowledge_pb2.WatchSpansResponse]:
        script = self.scripts[len(self.requests)]
        self.requests.append(request)
        self.authorizations.append(str(dict(context.invocation_metadata()).get("authorization")))
        if script.ending == "hang":
            # Fires when the RPC terminates, which for a hanging stream means the client left.
            context.add_callback(self.client_gone.set)
        for item in script.events:
            time.sleep(script.delay)
            yield item
        if script.ending == "hang":
            while context.is_active():
                time.sleep(0.01)
        elif script.ending != "close":
            context.abort(grpc.StatusCode[script.ending], "server going away")

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        return knowledge_pb2.GetKnowledgeResponse(knowledge=self.final)


def scripted(*scripts: Script) -> ScriptedKnowledge:
    # The generated .pyi marks every RPC abstract; the run-time base answers UNIMPLEMENTED.
    return ScriptedKnowledge(list(scripts))  # type: ignore[abstract]


FULL_RUN = [
    event(
        SNAPSHOT,
        span("docreader", common_pb2.SPAN_STATUS_PENDING),
        span("chunking", common_pb2.SPAN_STATUS_PENDING),
    ),
    event(SPAN, span("docreader", common_pb2.SPAN_STATUS_RUNNING)),
    event(SPAN, span("docreader", common_pb2.SPAN_STATUS_DONE, pages=3)),
    event(SPAN, span("chunking", common_pb2.SPAN_STATUS_DONE, chunks_written=12)),
    event(END, parse_status=common_pb2.PARSE_STATUS_COMPLETED),
]


def test_watch_spans_yields_the_snapshot_every_change_and_the_end(serve: Serve) -> None:
    servicer = scripted(Script(FULL_RUN))
    with SluiceClient(serve(servicer), api_key="key-1") as client:
        events = list(client.watch_spans("k-1", attempt=2))

    assert [e.type for e in events] == [
        v1.WatchEventType.SNAPSHOT,
        v1.WatchEventType.SPAN,
        v1.WatchEventType.SPAN,
        v1.WatchEventType.SPAN,
        v1.WatchEventType.END,
    ]
    assert [(s.name, s.status) for s in events[0].spans] == [
        ("docreader", v1.SpanStatus.PENDING),
        ("chunking", v1.SpanStatus.PENDING),
    ]
    chunking = events[3].spans[0]
    assert chunking.output is not None
    assert chunking.output.to_dict() == {"chunks_written": 12}
    assert events[4].parse_status == v1.ParseStatus.COMPLETED
    assert [(r.knowledge_id, r.attempt) for r in servicer.requests] == [("k-1", 2)]
    assert servicer.authorizations == ["Bearer key-1"]


def test_watch_streams_have_no_default_deadline(serve: Serve) -> None:
    servicer = scripted(Script(FULL_RUN[:1] + FULL_RUN[-1:], delay=0.3))
    with SluiceClient(serve(servicer), timeout=0.1) as client:
        events = list(client.watch_spans("k-1"))
    assert events[-1].type == v1.WatchEventType.END


def test_leaving_a_watch_early_cancels_the_stream_on_the_server(serve: Serve) -> None:
    servicer = scripted(Script(FULL_RUN[:1], ending="hang"))
    with SluiceClient(serve(servicer)) as client:
        for _ in client.watch_spans("k-1"):
            break
        assert servicer.client_gone.wait(timeout=5)


@pytest.mark.parametrize("ending", ["UNAVAILABLE", "close"])
def test_wait_until_done_resumes_from_a_new_snapshot_after_the_stream_breaks(
    serve: Serve, ending: str
) -> None:
    resumed = event(
        SNAPSHOT,
        span("docreader", common_pb2.SPAN_STATUS_DONE),
        span("chunking", common_pb2.SPAN_STATUS_RUNNING),
    )
    servicer = scripted(
        Script(FULL_RUN[:2], ending=ending),
        Script([resumed, FULL_RUN[-1]]),
    )
    seen: list[v1.WatchSpansResponse] = []

    with SluiceClient(serve(servicer)) as client:
        knowledge = client.wait_until_done("k-1", timeout=10, on_event=seen.append)

    assert knowledge.id == "k-1"
    assert knowledge.parse_status == v1.ParseStatus.COMPLETED
    assert len(servicer.requests) == 2
    assert [e.type for e in seen] == [
        v1.WatchEventType.SNAPSHOT,
        v1.WatchEventType.SPAN,
        v1.WatchEventType.SNAPSHOT,
        v1.WatchEventType.END,
    ]


def test_wait_until_done_reconnects_after_the_last_sequence_it_was_sent(serve: Serve) -> None:
    first = [
        knowledge_pb2.WatchSpansResponse(type=SNAPSHOT, attempt=3, sequence=40),
        knowledge_pb2.WatchSpansResponse(
            type=SPAN,
            attempt=3,
            sequence=41,
            spans=[span("docreader", common_pb2.SPAN_STATUS_DONE)],
        ),
    ]
    servicer = scripted(Script(first, ending="UNAVAILABLE"), Script([FULL_RUN[-1]]))

    with SluiceClient(serve(servicer)) as client:
        client.wait_until_done("k-1", timeout=10)

    opened, reopened = servicer.requests
    assert (opened.after_sequence, opened.after_attempt) == (0, 0)
    assert (reopened.knowledge_id, reopened.attempt) == ("k-1", 0)
    assert (reopened.after_sequence, reopened.after_attempt) == (41, 3)


def test_wait_until_done_raises_timeout_error_when_the_work_does_not_end(serve: Serve) -> None:
    servicer = scripted(Script(FULL_RUN[:1], ending="hang"))
    with SluiceClient(serve(servicer)) as client:
        started = time.monotonic()
        with pytest.raises(TimeoutError) as raised:
            client.wait_until_done("k-1", timeout=0.3)
        elapsed = time.monotonic() - started

    assert isinstance(raised.value, SluiceError)
    assert 0.3 <= elapsed < 3
    assert servicer.client_gone.wait(timeout=5)


def test_wait_until_done_does_not_retry_other_errors(serve: Serve) -> None:
    servicer = scripted(Script([], ending="NOT_FOUND"), Script(FULL_RUN))
    with SluiceClient(serve(servicer)) as client, pytest.raises(NotFound):
        client.wait_until_done("k-1", timeout=10)
    assert len(servicer.requests) == 1
