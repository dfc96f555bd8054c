"""WatchSpans fan-out inside one API process, on a real database with the in-process bus
and with Redis pub/sub: one subscription per knowledge whatever the number of streams, stale
or repeated span events dropped, and a stream that falls behind resynchronised from the
database without holding up the others."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from redis import Redis
from sluice.v1 import common_pb2, knowledge_pb2

from server.api.watch import INBOX_ITEMS, SpanWatcher
from server.api.watch_encoding import SharedEncodings
from server.api.watch_state import KnownSpans, read_state
from server.services.progress import ProgressReads
from storage.events.base import ProgressEvent
from storage.events.memory_bus import InMemoryEventBus
from storage.events.redis_bus import RedisEventBus
from tests.integration.housekeeping.conftest import Scope, add_knowledge, make_settings
from tests.support.databases import REDIS_URL, empty_database_url, redis_prefix
from tests.support.worker_context import worker_context
from workers.context import WorkerContext
from workers.pipeline.round.spans import ROOT, SpanTracker, span_event
from workers.pipeline.round.state import KnowledgeState

SNAPSHOT = knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT
SPAN = knowledge_pb2.WATCH_EVENT_TYPE_SPAN
END = knowledge_pb2.WATCH_EVENT_TYPE_END
Messages = list[knowledge_pb2.WatchSpansResponse]


Bus = InMemoryEventBus | RedisEventBus


@pytest.fixture(params=("memory", "redis"))
def bus(request: pytest.FixtureRequest) -> Iterator[Bus]:
    if request.param == "memory":
        yield InMemoryEventBus()
        return
    with redis_prefix() as prefix:
        redis_bus = RedisEventBus(REDIS_URL, prefix)
        yield redis_bus
        redis_bus.close()


def subscriptions(bus: Bus, knowledge_id: str) -> int:
    """How many bus subscriptions the knowledge has (Redis: as the server counts them)."""
    if isinstance(bus, InMemoryEventBus):
        return bus.subscriber_count(knowledge_id)
    client = Redis.from_url(REDIS_URL)
    try:
        counts = client.pubsub_numsub(bus.channel(knowledge_id))
    finally:
        client.close()
    return int(counts[0][1])


@pytest.fixture
def ctx(tmp_path: Path, bus: Bus) -> Iterator[WorkerContext]:
    with empty_database_url("sqlite", tmp_path) as url:
        settings = make_settings(url, tmp_path, mode="lite")
        with worker_context(settings, publisher=bus) as context:
            yield context


@pytest.fixture
def scope(ctx: WorkerContext) -> Scope:
    tenant = ctx.tenants.create_tenant(f"w-{uuid.uuid4().hex[:6]}")
    kb = ctx.knowledge_bases.create(
        tenant.id,
        "kb",
        description="",
        type="document",
        config={},
        embedding_model_key="m",
        storage_backend_id="",
    )
    return Scope(tenant.id, kb.id)


def _tracker(ctx: WorkerContext, knowledge_id: str, tenant_id: str) -> SpanTracker:
    # Every progress change written at once: these tests need many changes, fast.
    return SpanTracker(
        ctx.spans,
        ctx.publisher,
        tenant_id=tenant_id,
        knowledge_id=knowledge_id,
        attempt=1,
        progress_interval_s=0,
    )


async def _messages(
    stream: AsyncIterator[bytes],
) -> AsyncGenerator[knowledge_pb2.WatchSpansResponse]:
    """The stream's messages (it yields them serialized, as they go on the wire)."""
    async for encoded in stream:
        yield knowledge_pb2.WatchSpansResponse.FromString(encoded)


async def _collect(stream: AsyncIterator[bytes], into: Messages) -> None:
    async for message in _messages(stream):
        into.append(message)


def _sequences_per_span(messages: Messages) -> dict[str, list[int]]:
    shown: dict[str, list[int]] = {}
    for message in messages:
        if message.type == END:
            continue
        for span in message.spans:
            shown.setdefault(span.name, []).append(span.sequence)
    return shown


async def _until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    for _ in range(int(timeout_s / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("condition not met")


def test_many_streams_share_one_subscription_and_drop_stale_events(
    ctx: WorkerContext, scope: Scope, bus: Bus
) -> None:
    knowledge = add_knowledge(ctx, scope)
    watcher = SpanWatcher(ProgressReads(ctx), bus, recheck_s=30.0)
    tracker = _tracker(ctx, knowledge.id, scope.tenant_id)

    encodings: list[SharedEncodings] = []

    async def scenario() -> list[Messages]:
        seen: list[Messages] = [[] for _ in range(50)]
        tasks = [
            asyncio.create_task(_collect(watcher.watch(knowledge.id, 0), messages))
            for messages in seen
        ]
        await _until(lambda: all(seen))
        assert subscriptions(bus, knowledge.id) == 1
        assert watcher.hub.feed_count() == 1
        feed = watcher.hub.feed(knowledge.id)
        assert feed is not None
        encodings.append(feed.encodings)
        await asyncio.to_thread(tracker.open, {"file_name": "a.md"})
        await asyncio.to_thread(tracker.begin, "docreader", {})
        early = ctx.spans.list(knowledge.id, 1, tenant_id=None)
        await asyncio.to_thread(tracker.end, "docreader", {"pages": 1})
        # A writer that published late: its events are older than what streams have shown.
        for row in early:
            bus.publish(span_event(row))
        for stage in ("chunking", "embedding", "multimodal", "postprocess"):
            await asyncio.to_thread(tracker.end, stage, {})
        assert await asyncio.to_thread(KnowledgeState(ctx, knowledge.id, 1).complete)
        await asyncio.to_thread(tracker.close, "done")
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        return seen

    everything = asyncio.run(scenario())

    stored = {s.name: s.sequence for s in ctx.spans.list(knowledge.id, 1, tenant_id=None)}
    for messages in everything:
        assert messages[0].type == SNAPSHOT and messages[-1].type == END
        for name, sequences in _sequences_per_span(messages).items():
            assert sequences == sorted(set(sequences)), name  # none twice, none backwards
            assert sequences[-1] == stored[name]
        assert messages[-1].sequence == max(stored.values())
    assert watcher.hub.feed_count() == 0  # the last stream out closed the feed
    assert subscriptions(bus, knowledge.id) == 0
    # The streams were in step: each message was built and serialized once for all 50.
    longest = max(len(messages) for messages in everything)
    assert sum(len(messages) for messages in everything) >= 50 * 3
    assert encodings[0].built <= 2 * longest


def test_a_read_reuses_the_span_states_its_feed_has_already_seen(
    ctx: WorkerContext, scope: Scope
) -> None:
    knowledge = add_knowledge(ctx, scope)
    tracker = _tracker(ctx, knowledge.id, scope.tenant_id)
    tracker.open({})
    tracker.begin("docreader", {})
    known, reads = KnownSpans(), ProgressReads(ctx)
    first = read_state(reads, knowledge.id, 0, known)
    for span in first.spans.values():
        known.remember(span)
    tracker.end("docreader", {"pages": 1})

    second = read_state(reads, knowledge.id, 0, known)

    assert second.spans[ROOT] is first.spans[ROOT]  # unchanged: not converted again
    changed = second.spans["docreader"]
    assert changed is not first.spans["docreader"]
    assert changed.sequence > first.spans["docreader"].sequence
    assert changed.status == "done" and changed.message.output["pages"] == 1
    assert read_state(reads, knowledge.id, 0).spans["docreader"].message == changed.message


def test_a_stream_that_falls_behind_is_resynchronised_without_holding_up_the_others(
    ctx: WorkerContext, scope: Scope, bus: Bus
) -> None:
    knowledge = add_knowledge(ctx, scope)
    watcher = SpanWatcher(ProgressReads(ctx), bus, recheck_s=30.0)
    tracker = _tracker(ctx, knowledge.id, scope.tenant_id)
    changes = INBOX_ITEMS + 100

    async def scenario() -> tuple[Messages, Messages]:
        fast: Messages = []
        fast_task = asyncio.create_task(_collect(watcher.watch(knowledge.id, 0), fast))
        slow_stream = _messages(watcher.watch(knowledge.id, 0))
        slow = [await anext(slow_stream)]  # its snapshot; then it stops reading
        await _until(lambda: bool(fast))
        await asyncio.to_thread(tracker.open, {})
        await asyncio.to_thread(tracker.begin, "docreader", {})
        for n in range(changes):
            await asyncio.to_thread(tracker.progress, "docreader", {"done": n})
        await _until(
            lambda: any(
                s.output["done"] == changes - 1 for m in fast for s in m.spans if "done" in s.output
            )
        )
        # The fast stream got every change while the slow one read nothing.
        slow.append(await anext(slow_stream))
        fast_task.cancel()
        await slow_stream.aclose()
        return fast, slow

    fast, slow = asyncio.run(scenario())

    shown = _sequences_per_span(fast)["docreader"]
    assert shown == sorted(set(shown))
    # The slow stream's next message is the state as it is now, not its backlog.
    catch_up = slow[1]
    assert catch_up.type == SPAN
    latest = {s.name: s for s in catch_up.spans}
    assert latest["docreader"].output["done"] == changes - 1
    assert latest[ROOT].sequence == next(
        s.sequence for s in ctx.spans.list(knowledge.id, 1, tenant_id=None) if s.name == ROOT
    )
    spans = ctx.spans.list(knowledge.id, 1, tenant_id=None)
    assert catch_up.sequence == max(s.sequence for s in spans)


def test_a_malformed_span_event_leaves_the_feed_working(
    ctx: WorkerContext, scope: Scope, bus: Bus
) -> None:
    knowledge = add_knowledge(ctx, scope)
    watcher = SpanWatcher(ProgressReads(ctx), bus, recheck_s=30.0)

    async def scenario() -> Messages:
        stream = _messages(watcher.watch(knowledge.id, 0))
        first = await anext(stream)
        bus.publish(ProgressEvent(knowledge.id, 1, "span", {"name": "x"}))
        assert await asyncio.to_thread(KnowledgeState(ctx, knowledge.id, 1).complete)
        async with asyncio.timeout(10):  # END comes from the status change, not a timer
            rest = [m async for m in stream]
        return [first, *rest]

    messages = asyncio.run(scenario())
    assert [m.type for m in messages] == [SNAPSHOT, END]
    assert messages[-1].parse_status == common_pb2.PARSE_STATUS_COMPLETED
