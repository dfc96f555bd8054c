"""WatchSpans with many concurrent streams, in lite mode and in full mode: no span ever shown
older than, or again as, a state the stream already showed; END as soon as the round is
over; and a reconnect resumes from a sequence."""

from __future__ import annotations

import asyncio
import statistics
import uuid
from datetime import UTC

import grpc
import pytest
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack
from tests.e2e.watch_support import (
    END,
    OPEN,
    ROOT,
    SNAPSHOT,
    SPAN,
    Seen,
    final_spans,
    order_violations,
    watch,
    watch_many,
)

DOCUMENTS = 3
WATCHERS_PER_DOCUMENT = 40
WAIT_S = 240


def _text(topic: str) -> str:
    sections = [
        f"## {topic} {n}\n\nPart {n} of the {topic} notes covers pumps, valves and gates."
        for n in range(12)
    ]
    return f"# {topic}\n\n" + "\n\n".join(sections)


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"watch-{uuid.uuid4().hex[:8]}")


def test_many_watchers_never_see_a_span_go_back_and_end_promptly(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    # Drafts first, so every stream is open before processing starts; publishing then
    # begins attempt 1, which every stream must switch to.
    drafts = [
        client.create_manual(kb.id, f"fan-out {n}", _text(f"topic{n}"), publish=False)
        for n in range(DOCUMENTS)
    ]
    requests = [
        knowledge_pb2.WatchSpansRequest(knowledge_id=d.id)
        for d in drafts
        for _ in range(WATCHERS_PER_DOCUMENT)
    ]

    async def scenario() -> list[Seen]:
        streams = asyncio.ensure_future(watch_many(stack.target, requests, timeout_s=WAIT_S))
        await asyncio.sleep(2.0)  # every stream has its snapshot by then
        for draft in drafts:
            await asyncio.to_thread(client.update_manual, draft.id, publish=True)
        return await streams

    everything = asyncio.run(scenario())

    end_lags: list[float] = []
    for seen in everything:
        first, last = seen.messages[0], seen.messages[-1]
        assert first.type == SNAPSHOT and first.attempt == 0
        assert last.type == END and last.attempt == 1
        assert last.parse_status == common_pb2.PARSE_STATUS_COMPLETED
        assert order_violations(seen) == (0, 0)
        watermarks = [m.sequence for m in seen.messages]
        assert watermarks == sorted(watermarks)
        spans = final_spans(seen)
        assert ROOT in spans and not any(s.status in OPEN for s in spans.values())
        # Everything the stream showed adds up to what is stored, up to its watermark.
        assert last.sequence == max(s.sequence for s in spans.values())
        end_lags.append(seen.arrivals[-1] - spans[ROOT].ended_at.ToDatetime(tzinfo=UTC).timestamp())
    stored = {d.id: client.get_spans(d.id) for d in drafts}
    for seen in everything:
        knowledge_id = seen.messages[-1].spans[0].knowledge_id
        assert seen.messages[-1].sequence == stored[knowledge_id].sequence
    # END follows the root span's close by the time events take to arrive, not by a poll.
    assert statistics.median(end_lags) < 1.0, sorted(end_lags)
    assert max(end_lags) < 3.0, sorted(end_lags)


def _mid_round(seen: Seen) -> bool:
    """Hang up in the middle of the round: attempt 1 shown, and at least one change of it."""
    return seen.messages[-1].attempt == 1 and any(m.type == SPAN for m in seen.messages)


def test_a_reconnect_resumes_after_the_last_sequence_it_saw(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    draft = client.create_manual(kb.id, "resume", _text("resume"), publish=False)

    async def first_part() -> Seen:
        async with grpc.aio.insecure_channel(stack.target) as channel:
            stub: knowledge_pb2_grpc.KnowledgeServiceAsyncStub = (
                knowledge_pb2_grpc.KnowledgeServiceStub(channel)
            )
            request = knowledge_pb2.WatchSpansRequest(knowledge_id=draft.id)
            stream = asyncio.ensure_future(
                watch(stub, request, Seen(), timeout_s=WAIT_S, until=_mid_round)
            )
            await asyncio.sleep(1.0)
            await asyncio.to_thread(client.update_manual, draft.id, publish=True)
            return await stream

    before = asyncio.run(first_part())
    last = before.messages[-1]
    assert last.type != END and last.sequence > 0
    client.wait_until_done(draft.id, WAIT_S)
    stored = client.get_spans(draft.id)

    resumed = asyncio.run(
        watch_many(
            stack.target,
            [
                knowledge_pb2.WatchSpansRequest(
                    knowledge_id=draft.id, after_sequence=last.sequence, after_attempt=1
                )
            ],
            timeout_s=WAIT_S,
        )
    )[0]

    opening = resumed.messages[0]
    assert opening.type == SPAN and opening.attempt == 1
    expected = {s.name: s.sequence for s in stored.spans if s.sequence > last.sequence}
    assert {s.name: s.sequence for s in opening.spans} == expected
    assert resumed.messages[-1].type == END
    assert resumed.messages[-1].sequence == stored.sequence
    # What was shown before the hang-up plus what the resumed stream sent is the stored state.
    merged = final_spans(before)
    for message in resumed.messages[:-1]:
        for span in message.spans:
            merged[span.name] = span
    assert {n: int(s.status) for n, s in merged.items()} == {
        s.name: int(s.status) for s in stored.spans
    }


def test_resuming_another_attempt_gets_a_full_snapshot_and_bad_sequences_are_refused(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase
) -> None:
    knowledge = client.create_manual(kb.id, "other attempt", _text("other"))
    client.wait_until_done(knowledge.id, WAIT_S)
    stored = client.get_spans(knowledge.id)

    (seen,) = asyncio.run(
        watch_many(
            stack.target,
            [
                knowledge_pb2.WatchSpansRequest(
                    knowledge_id=knowledge.id, after_sequence=3, after_attempt=7
                )
            ],
            timeout_s=WAIT_S,
        )
    )
    assert seen.messages[0].type == SNAPSHOT
    assert {s.name for s in seen.messages[0].spans} == {s.name for s in stored.spans}

    async def negative() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(stack.target) as channel:
            stub: knowledge_pb2_grpc.KnowledgeServiceAsyncStub = (
                knowledge_pb2_grpc.KnowledgeServiceStub(channel)
            )
            request = knowledge_pb2.WatchSpansRequest(knowledge_id=knowledge.id, after_sequence=-1)
            try:
                async for _ in stub.WatchSpans(request, timeout=30):
                    pass
            except grpc.aio.AioRpcError as error:
                return error.code()
            return grpc.StatusCode.OK

    assert asyncio.run(negative()) == grpc.StatusCode.INVALID_ARGUMENT
