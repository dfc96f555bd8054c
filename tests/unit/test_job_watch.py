"""server.services.job_watch against the in-process bus: a watcher is woken by the job's
events, sees each change once, ends with the job, and keeps going by polling when the bus
breaks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from server.services.job_watch import watch_job
from storage.events.base import EventBusError, ProgressEvent, job_changed_event
from storage.events.memory_bus import InMemoryEventBus


class _Job:
    def __init__(self) -> None:
        self.done = 0
        self.reads = 0

    async def read(self) -> int:
        self.reads += 1
        return self.done


def _ended(done: int) -> bool:
    return done >= 3


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the watcher never subscribed and read")


async def _collect(stream: AsyncIterator[int]) -> list[int]:
    return [item async for item in stream]


def test_events_wake_the_watcher_and_it_ends_with_the_job() -> None:
    async def scenario() -> list[int]:
        bus, job = InMemoryEventBus(), _Job()
        # A poll far longer than the test: only events can move it along.
        watching = asyncio.ensure_future(
            _collect(watch_job(bus, "job-1", job.read, _ended, poll_s=60))
        )
        await _until(lambda: bus.subscriber_count("job-1") > 0 and job.reads > 0)
        for done in (1, 1, 2, 3):
            job.done = done
            bus.publish(job_changed_event("job-1"))
            await asyncio.sleep(0.05)
        return await asyncio.wait_for(watching, 5)

    assert asyncio.run(scenario()) == [0, 1, 2, 3]


def test_an_ended_job_is_yielded_once_and_the_stream_ends() -> None:
    job = _Job()
    job.done = 3
    assert asyncio.run(_collect(watch_job(InMemoryEventBus(), "j", job.read, _ended))) == [3]


class _BrokenBus:
    @asynccontextmanager
    async def subscribe(self, knowledge_id: str) -> AsyncIterator[AsyncIterator[ProgressEvent]]:
        raise EventBusError("redis is down")
        yield  # pragma: no cover


def test_without_a_bus_the_watcher_polls() -> None:
    async def scenario() -> list[int]:
        job = _Job()
        watching = asyncio.ensure_future(
            _collect(watch_job(_BrokenBus(), "j", job.read, _ended, poll_s=0.02))
        )
        for done in (1, 2, 3):
            await asyncio.sleep(0.1)
            job.done = done
        return await asyncio.wait_for(watching, 5)

    assert asyncio.run(scenario()) == [0, 1, 2, 3]
