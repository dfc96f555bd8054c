"""Progress buses: Redis pub/sub (real Redis, plus a private redis-server to restart) and the
in-process bus, each published to from other threads and read by asyncio subscribers."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from uuid import uuid4

import pytest
from redis import Redis

from storage.events.base import EventBusError, ProgressEvent
from storage.events.memory_bus import InMemoryEventBus
from storage.events.redis_bus import RedisEventBus
from tests.support.databases import REDIS_URL


def span(knowledge_id: str, index: int, attempt: int = 1) -> ProgressEvent:
    return ProgressEvent(knowledge_id, attempt, "span", {"index": index, "stage": "chunking"})


def publish_from_thread(bus: RedisEventBus | InMemoryEventBus, events: list[ProgressEvent]) -> None:
    thread = threading.Thread(target=lambda: [bus.publish(event) for event in events])
    thread.start()
    thread.join()


async def take(events: AsyncIterator[ProgressEvent], count: int) -> list[ProgressEvent]:
    async with asyncio.timeout(5):
        return [await anext(events) for _ in range(count)]


async def nothing_arrives(events: AsyncIterator[ProgressEvent], within: float) -> bool:
    try:
        async with asyncio.timeout(within):
            await anext(events)
    except TimeoutError:
        return True
    return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def prefix() -> str:
    # Pub/sub keeps nothing in Redis, so there is nothing to clean afterwards.
    return f"sluice_test_{uuid4().hex[:8]}"


@pytest.fixture
def redis_bus(prefix: str) -> Iterator[RedisEventBus]:
    bus = RedisEventBus(REDIS_URL, prefix)
    yield bus
    bus.close()


class PrivateRedis:
    """A redis-server of our own, so the test may stop and restart it."""

    def __init__(self, tmp_dir: str) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._dir = tmp_dir
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self._process = subprocess.Popen(
            [
                binary,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._dir,
            ],
            stdout=subprocess.DEVNULL,
        )
        client = Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def pause(self) -> None:
        """The server stops answering but keeps its connections open."""
        assert self._process is not None
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self._process is not None
        self._process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=10)
        self._process = None


@pytest.fixture
def private_redis(tmp_path: os.PathLike[str]) -> Iterator[PrivateRedis]:
    server = PrivateRedis(str(tmp_path))
    server.start()
    yield server
    server.stop()


# ---- Redis bus ---------------------------------------------------------------------------------


def test_redis_bus_delivers_events_published_from_a_thread_in_order(
    redis_bus: RedisEventBus,
) -> None:
    sent = [span("k1", index) for index in range(50)]

    async def scenario() -> list[ProgressEvent]:
        async with redis_bus.subscribe("k1") as events:
            publish_from_thread(redis_bus, [span("other", 0), *sent])
            return await take(events, 50)

    assert asyncio.run(scenario()) == sent


def test_redis_bus_subscription_is_live_once_entered(prefix: str) -> None:
    """What a worker publishes right after the watcher entered (while it would read its
    snapshot) arrives, through another connection, every time."""
    watcher_bus, worker_bus = RedisEventBus(REDIS_URL, prefix), RedisEventBus(REDIS_URL, prefix)

    async def scenario() -> None:
        for round_number in range(20):
            async with watcher_bus.subscribe("k1") as events:
                worker_bus.publish(span("k1", round_number))
                assert await take(events, 1) == [span("k1", round_number)]

    try:
        asyncio.run(scenario())
    finally:
        watcher_bus.close()
        worker_bus.close()


def test_redis_bus_prefixes_isolate_deployments(prefix: str) -> None:
    bus_a, bus_b = RedisEventBus(REDIS_URL, prefix), RedisEventBus(REDIS_URL, f"{prefix}b")

    async def scenario() -> None:
        async with bus_a.subscribe("k1") as events:
            bus_b.publish(span("k1", 1))
            assert await nothing_arrives(events, 0.3)
            bus_a.publish(span("k1", 2))
            assert await take(events, 1) == [span("k1", 2)]

    try:
        asyncio.run(scenario())
    finally:
        bus_a.close()
        bus_b.close()


def test_redis_bus_skips_malformed_messages(redis_bus: RedisEventBus, prefix: str) -> None:
    raw = Redis.from_url(REDIS_URL)

    async def scenario() -> list[ProgressEvent]:
        async with redis_bus.subscribe("k1") as events:
            raw.publish(redis_bus.channel("k1"), b"not json")
            raw.publish(redis_bus.channel("k1"), b'{"knowledge_id": "k1", "kind": "span"}')
            redis_bus.publish(span("k1", 7))
            return await take(events, 1)

    try:
        assert asyncio.run(scenario()) == [span("k1", 7)]
    finally:
        raw.close()


def test_redis_bus_publish_never_raises_when_redis_is_down(prefix: str) -> None:
    bus = RedisEventBus(f"redis://127.0.0.1:{free_port()}/0", prefix, timeout_s=0.5)
    try:
        started = time.monotonic()
        bus.publish(span("k1", 1))
        assert time.monotonic() - started < 5
    finally:
        bus.close()


def test_redis_bus_subscribe_to_unreachable_redis_raises_bus_error(prefix: str) -> None:
    bus = RedisEventBus(f"redis://127.0.0.1:{free_port()}/0", prefix, timeout_s=0.5)

    async def scenario() -> None:
        async with bus.subscribe("k1"):
            pytest.fail("subscribed to a server that does not exist")

    try:
        with pytest.raises(EventBusError):
            asyncio.run(scenario())
    finally:
        bus.close()


def test_redis_bus_subscriber_survives_a_redis_restart(
    private_redis: PrivateRedis, prefix: str
) -> None:
    bus = RedisEventBus(private_redis.url, prefix, timeout_s=1.0, keepalive_s=1.0)

    async def broken_subscription() -> float:
        async with bus.subscribe("k1") as events:
            bus.publish(span("k1", 1))
            assert await take(events, 1) == [span("k1", 1)]
            await asyncio.to_thread(private_redis.stop)
            stopped = time.monotonic()
            with pytest.raises(EventBusError):
                async with asyncio.timeout(10):
                    await anext(events)
            return time.monotonic() - stopped

    async def fresh_subscription() -> list[ProgressEvent]:
        async with bus.subscribe("k1") as events:
            bus.publish(span("k1", 2))
            return await take(events, 1)

    try:
        assert asyncio.run(broken_subscription()) < 5
        private_redis.start()  # same port
        assert asyncio.run(fresh_subscription()) == [span("k1", 2)]
    finally:
        bus.close()


def test_redis_bus_subscriber_notices_a_silent_redis(
    private_redis: PrivateRedis, prefix: str
) -> None:
    bus = RedisEventBus(private_redis.url, prefix, timeout_s=1.0, keepalive_s=0.5)

    async def scenario() -> float:
        async with bus.subscribe("k1") as events:
            private_redis.pause()
            paused = time.monotonic()
            try:
                with pytest.raises(EventBusError):
                    async with asyncio.timeout(10):
                        await anext(events)
            finally:
                private_redis.resume()
            with pytest.raises(EventBusError):  # a broken subscription stays broken
                await anext(events)
            return time.monotonic() - paused

    try:
        assert asyncio.run(scenario()) < 3
    finally:
        bus.close()


# ---- in-memory bus -----------------------------------------------------------------------------


def test_memory_bus_delivers_events_published_from_threads_in_order() -> None:
    bus = InMemoryEventBus()
    sent = [span("k1", index) for index in range(100)]

    async def scenario() -> list[ProgressEvent]:
        async with bus.subscribe("k1") as events:
            await asyncio.to_thread(publish_from_thread, bus, [span("other", 0), *sent])
            return await take(events, 100)

    assert asyncio.run(scenario()) == sent
    assert bus.subscriber_count("k1") == 0


def test_memory_bus_iterator_survives_a_timeout_and_ends_with_its_context() -> None:
    bus = InMemoryEventBus()

    async def scenario() -> None:
        async with bus.subscribe("k1") as events:
            assert await nothing_arrives(events, 0.1)
            bus.publish(span("k1", 1))
            assert await take(events, 1) == [span("k1", 1)]
        with pytest.raises(StopAsyncIteration):
            await anext(events)

    asyncio.run(scenario())


def test_memory_bus_subscription_is_live_once_entered() -> None:
    bus = InMemoryEventBus()

    async def scenario() -> list[ProgressEvent]:
        async with bus.subscribe("k1") as events:
            threading.Thread(target=bus.publish, args=(span("k1", 1),)).start()
            return await take(events, 1)

    assert asyncio.run(scenario()) == [span("k1", 1)]


def test_memory_bus_overflow_drops_oldest_and_asks_for_resync() -> None:
    bus = InMemoryEventBus(max_queued=5)
    sent = [span("k1", index) for index in range(12)]

    async def scenario() -> list[ProgressEvent]:
        async with bus.subscribe("k1") as events:
            # Published while the subscriber reads nothing; the loop keeps delivering.
            await asyncio.to_thread(publish_from_thread, bus, sent)
            await asyncio.sleep(0.05)
            received = await take(events, 6)
            bus.publish(span("k1", 99))
            received += await take(events, 1)
            return received

    received = asyncio.run(scenario())
    assert received[0] == ProgressEvent("k1", 0, "resync", {"dropped": 7})
    assert received[1:6] == sent[7:]
    assert received[6] == span("k1", 99)  # back to normal after the resync


def test_memory_bus_publish_without_or_after_subscribers_is_harmless() -> None:
    bus = InMemoryEventBus()
    bus.publish(span("k1", 0))

    async def scenario() -> None:
        async with bus.subscribe("k1"):
            pass

    asyncio.run(scenario())
    bus.publish(span("k1", 1))
    assert bus.subscriber_count("k1") == 0


def test_progress_event_json_round_trip_and_validation() -> None:
    event = ProgressEvent("k1", 3, "state", {"parse_status": "completed"})
    assert ProgressEvent.from_json(event.to_json()) == event
    for bad in (
        "[]",
        '{"knowledge_id": "k1", "attempt": 1, "kind": "bogus", "data": {}}',
        '{"knowledge_id": "k1", "attempt": true, "kind": "span", "data": {}}',
        '{"knowledge_id": "", "attempt": 1, "kind": "span", "data": {}}',
    ):
        with pytest.raises(ValueError):
            ProgressEvent.from_json(bad)
