"""(f) WatchSpans fan-out: 1,000 streams over 10 documents (100 each, on 10 channels) while
the documents are ingested, in full mode (default) or lite mode.

Each round makes the documents as drafts, opens the streams (each gets its snapshot), keeps
them idle for a while (the API's CPU then is the cost of idle streams), publishes the
documents and follows every stream to its END. Reported: the lag of each span event (its
span's updated_at, written by the worker, to its arrival here), the lag of END behind the
root span's close, span states shown older than or the same as one a stream had shown, and
the ingestion time (first publish to last root span closed). Side by side, in the same run
and on the same stack: the same round with no stream open, before and after the watched
round (the faster of the two is the baseline), so the slowdown ratio is watched ÷ unwatched.

    .venv/bin/python -m bench.watch_fanout [--mode full|lite] [--watchers 1000]
        [--documents 10] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

import grpc
import psutil
import redis.asyncio as aioredis
from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from bench.report import percentile, verdict, write_result
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.e2e.watch_support import END, ROOT, SPAN, Seen, order_violations, watch
from tests.support.databases import REDIS_URL

NAME = "watch_fanout"
TARGET_P99_S = 0.25
WAIT_S = 600.0


# The same-run baseline for the lag: a bare Redis pub/sub message from another process to
# this one's event loop (busy with the same streams), every 20 ms, for at most 10 minutes.
_PING_PUBLISHER = """
import sys, time, redis
client, channel = redis.Redis.from_url(sys.argv[1]), sys.argv[2]
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    client.publish(channel, repr(time.time()))
    time.sleep(0.02)
"""


@contextmanager
def _bare_pubsub_lags() -> Iterator[list[float]]:
    """Lags of bare pub/sub messages while the block runs (inside the running loop)."""
    channel = f"bench-watch-ping-{uuid.uuid4().hex[:8]}"
    lags: list[float] = []
    publisher = subprocess.Popen([sys.executable, "-c", _PING_PUBLISHER, REDIS_URL, channel])
    subscriber = aioredis.Redis.from_url(REDIS_URL)

    async def listen() -> None:
        async with subscriber.pubsub() as pubsub:
            await pubsub.subscribe(channel)
            async for message in pubsub.listen():
                if message["type"] == "message":
                    lags.append(time.time() - float(message["data"]))

    task = asyncio.ensure_future(listen())
    try:
        yield lags
    finally:
        task.cancel()
        publisher.terminate()
        publisher.wait(timeout=10)


@dataclass
class Round:
    ingest_s: float
    idle_api_cpu: float  # fraction of one core used by the API while the streams were idle
    lags_s: list[float] = field(default_factory=list)
    end_lags_s: list[float] = field(default_factory=list)
    backwards: int = 0
    duplicates: int = 0
    streams: int = 0
    ended: int = 0
    messages: int = 0  # sent after the streams' opening messages
    api_cpu_s: float = 0.0  # CPU seconds the API used from the first publish to the last END
    client_cpu_s: float = 0.0  # ... and this process (the streams' client side)
    bare_lags_s: list[float] = field(default_factory=list)


def _text(n: int) -> str:
    sections = [
        f"## Part {k}\n\nDocument {n}, part {k}: the pumps, valves and sluice gates of canal "
        f"{n} are checked every week and greased every month."
        for k in range(20)
    ]
    return f"# Canal {n}\n\n" + "\n\n".join(sections)


@contextmanager
def _stack(mode: str, tmp: Path) -> Iterator[Stack]:
    if mode == "lite":
        with lite_stack(tmp) as stack:
            yield stack
        return
    with full_stack(tmp, workers=2, extra_env={"SLUICE_EMBED_THREADS": "1"}) as stack:
        for n in range(2):
            stack.processes[f"worker{n}"].wait_for_line(r"Listening on", 120)
        yield stack


def _api_cpu_s(stack: Stack) -> float:
    times = psutil.Process(stack.processes["api"].pid).cpu_times()
    return float(times.user + times.system)


def _own_cpu_s() -> float:
    times = psutil.Process().cpu_times()
    return float(times.user + times.system)


def _publish_all(client: SluiceClient, drafts: Sequence[v1.Knowledge]) -> float:
    started = time.time()
    for draft in drafts:
        client.update_manual(draft.id, publish=True)
    return started


def _ingest_seconds(client: SluiceClient, drafts: Sequence[v1.Knowledge], started: float) -> float:
    ends = []
    for draft in drafts:
        root = next(s for s in client.get_spans(draft.id).spans if s.name == ROOT)
        assert root.ended_at is not None
        ends.append(root.ended_at.timestamp())
    return max(ends) - started


def _idle(stack: Stack, idle_s: float) -> float:
    before, start = _api_cpu_s(stack), time.monotonic()
    time.sleep(idle_s)
    return (_api_cpu_s(stack) - before) / (time.monotonic() - start)


def unwatched_round(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase, documents: int, idle_s: float
) -> Round:
    drafts = [
        client.create_manual(kb.id, f"plain {n}", _text(n), publish=False) for n in range(documents)
    ]
    idle = _idle(stack, idle_s)
    api_cpu, own_cpu = _api_cpu_s(stack), _own_cpu_s()
    started = _publish_all(client, drafts)
    for draft in drafts:
        done = client.wait_until_done(draft.id, WAIT_S)
        if done.parse_status != v1.ParseStatus.COMPLETED:
            raise RuntimeError(f"{draft.id} ended {done.parse_status.name}")
    return Round(
        _ingest_seconds(client, drafts, started),
        idle,
        api_cpu_s=_api_cpu_s(stack) - api_cpu,
        client_cpu_s=_own_cpu_s() - own_cpu,
    )


async def _open_streams(
    target: str, ids: Sequence[str], watchers: int, channels: int
) -> tuple[list[grpc.aio.Channel], list[Seen], list[asyncio.Task[Seen]]]:
    opened = [grpc.aio.insecure_channel(target) for _ in range(channels)]
    stubs: list[knowledge_pb2_grpc.KnowledgeServiceAsyncStub] = [
        knowledge_pb2_grpc.KnowledgeServiceStub(c) for c in opened
    ]
    seen = [Seen() for _ in range(watchers)]
    tasks = [
        asyncio.create_task(
            watch(
                stubs[n % channels],
                knowledge_pb2.WatchSpansRequest(knowledge_id=ids[n % len(ids)]),
                seen[n],
                timeout_s=WAIT_S,
            )
        )
        for n in range(watchers)
    ]
    deadline = time.monotonic() + 300
    while not all(s.messages for s in seen):  # every stream has its snapshot
        if time.monotonic() > deadline:
            raise RuntimeError("streams did not all open")
        await asyncio.sleep(0.1)
    return opened, seen, tasks


def watched_round(
    stack: Stack,
    client: SluiceClient,
    kb: v1.KnowledgeBase,
    documents: int,
    idle_s: float,
    watchers: int,
    channels: int,
) -> Round:
    drafts = [
        client.create_manual(kb.id, f"watched {n}", _text(n), publish=False)
        for n in range(documents)
    ]

    async def scenario() -> tuple[list[Seen], float, float, tuple[float, float], list[float]]:
        opened, seen, tasks = await _open_streams(
            stack.target, [d.id for d in drafts], watchers, channels
        )
        try:
            idle = await asyncio.to_thread(_idle, stack, idle_s)
            with _bare_pubsub_lags() as bare:
                api_cpu, own_cpu = _api_cpu_s(stack), _own_cpu_s()
                started = await asyncio.to_thread(_publish_all, client, drafts)
                await asyncio.gather(*tasks)
                used = (_api_cpu_s(stack) - api_cpu, _own_cpu_s() - own_cpu)
        finally:
            for channel in opened:
                await channel.close()
        return seen, idle, started, used, list(bare)

    seen, idle, started, (api_cpu_s, client_cpu_s), bare = asyncio.run(scenario())
    result = Round(
        _ingest_seconds(client, drafts, started),
        idle,
        streams=len(seen),
        api_cpu_s=api_cpu_s,
        client_cpu_s=client_cpu_s,
        bare_lags_s=bare,
    )
    for stream in seen:
        backwards, duplicates = order_violations(stream)
        result.messages += len(stream.messages) - 1
        result.backwards += backwards
        result.duplicates += duplicates
        for message, arrived in zip(stream.messages, stream.arrivals, strict=True):
            if message.type == SPAN:
                result.lags_s.extend(
                    arrived - s.updated_at.ToDatetime(tzinfo=UTC).timestamp() for s in message.spans
                )
            elif message.type == END:
                result.ended += 1
                root = next(s for s in message.spans if s.name == ROOT)
                result.end_lags_s.append(arrived - root.ended_at.ToDatetime(tzinfo=UTC).timestamp())
    return result


def _warm_up(client: SluiceClient) -> None:
    kb = client.create_knowledge_base(f"bench-watch-warm-up-{time.time_ns()}")
    for n in range(2):
        client.wait_until_done(client.create_manual(kb.id, f"warm {n}", _text(n)).id, WAIT_S)


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.watch_fanout", description=__doc__)
    parser.add_argument("--mode", choices=("full", "lite"), default="full")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--channels", type=int, default=10)
    parser.add_argument("--idle-s", type=float, default=10.0)
    parser.add_argument("--quick", action="store_true", help="100 streams over 4 documents")
    args = parser.parse_args(argv)
    watchers, documents = (100, 4) if args.quick else (args.watchers, args.documents)
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-watch-") as tmp,
        _stack(args.mode, Path(tmp)) as stack,
        SluiceClient(stack.target, timeout=120) as client,
    ):
        _warm_up(client)
        kb = client.create_knowledge_base(f"bench-watch-{time.time_ns()}")
        before = unwatched_round(stack, client, kb, documents, args.idle_s)
        watched = watched_round(stack, client, kb, documents, args.idle_s, watchers, args.channels)
        after = unwatched_round(stack, client, kb, documents, args.idle_s)
    baseline = min(before.ingest_s, after.ingest_s)
    ratio = watched.ingest_s / baseline
    p50, p99 = percentile(watched.lags_s, 0.5), percentile(watched.lags_s, 0.99)
    end_p50 = statistics.median(watched.end_lags_s)
    met = p99 < TARGET_P99_S and watched.backwards == 0 and watched.duplicates == 0
    met = met and watched.ended == watched.streams
    print(
        f"{args.mode} mode, {watchers} streams over {documents} documents, {args.channels} channels"
    )
    print(
        f"span event lag: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"max {max(watched.lags_s) * 1000:.0f} ms ({len(watched.lags_s)} events)"
    )
    bare_p50, bare_p99 = percentile(watched.bare_lags_s, 0.5), percentile(watched.bare_lags_s, 0.99)
    print(
        f"bare pub/sub between two processes meanwhile: p50 {bare_p50 * 1000:.0f} ms, "
        f"p99 {bare_p99 * 1000:.0f} ms ({len(watched.bare_lags_s)} messages); "
        f"Sluice p99 = {p99 / bare_p99:.1f} x bare"
    )
    print(
        f"END after the root span closed: p50 {end_p50 * 1000:.0f} ms, "
        f"max {max(watched.end_lags_s) * 1000:.0f} ms; {watched.ended}/{watched.streams} ended"
    )
    print(f"shown older than before: {watched.backwards}; shown twice: {watched.duplicates}")
    print(
        f"API CPU while the streams idle: {watched.idle_api_cpu:.1%} of a core "
        f"(no stream: {before.idle_api_cpu:.1%})"
    )
    print(
        f"CPU during ingestion: API {watched.api_cpu_s:.1f} s watched, "
        f"{after.api_cpu_s:.1f} s unwatched; stream clients (this process) "
        f"{watched.client_cpu_s:.1f} s; load average {os.getloadavg()[0]:.1f}"
    )
    per_message_us = (watched.api_cpu_s - after.api_cpu_s) / watched.messages * 1e6
    print(
        f"API CPU per message sent (watched - unwatched, / {watched.messages} messages): "
        f"{per_message_us:.0f} µs"
    )
    print(
        f"ingestion: {watched.ingest_s:.2f} s watched, {baseline:.2f} s unwatched "
        f"(before {before.ingest_s:.2f}, after {after.ingest_s:.2f}): ratio {ratio:.2f}"
    )
    print(f"p99 event lag (s): {verdict(p99, TARGET_P99_S, below=True)}")
    figures: dict[str, object] = {
        "mode": args.mode,
        "watchers": watchers,
        "documents": documents,
        "channels": args.channels,
        "lag_p50_s": round(p50, 4),
        "lag_p99_s": round(p99, 4),
        "lag_max_s": round(max(watched.lags_s), 4),
        "events": len(watched.lags_s),
        "bare_pubsub_lag_p50_s": round(bare_p50, 4),
        "bare_pubsub_lag_p99_s": round(bare_p99, 4),
        "end_lag_p50_s": round(end_p50, 4),
        "end_lag_max_s": round(max(watched.end_lags_s), 4),
        "backwards": watched.backwards,
        "duplicates": watched.duplicates,
        "ended": watched.ended,
        "idle_api_cpu_watched": round(watched.idle_api_cpu, 4),
        "idle_api_cpu_unwatched": round(before.idle_api_cpu, 4),
        "ingest_s_watched": round(watched.ingest_s, 3),
        "ingest_s_unwatched": round(baseline, 3),
        "ingest_slowdown_ratio": round(ratio, 3),
        "api_cpu_s_watched": round(watched.api_cpu_s, 2),
        "api_cpu_s_unwatched": round(after.api_cpu_s, 2),
        "client_cpu_s_watched": round(watched.client_cpu_s, 2),
        "messages": watched.messages,
        "api_cpu_us_per_message": round(per_message_us, 1),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "met": met,
    }
    write_result(f"{NAME}_{args.mode}", figures)
    return figures


if __name__ == "__main__":
    main()
