"""Many concurrent WatchSpans streams from one asyncio loop, and checks of what they saw."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc

SNAPSHOT = knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT
SPAN = knowledge_pb2.WATCH_EVENT_TYPE_SPAN
END = knowledge_pb2.WATCH_EVENT_TYPE_END
OPEN = {common_pb2.SPAN_STATUS_PENDING, common_pb2.SPAN_STATUS_RUNNING}
ROOT = "knowledge_processing"


@dataclass
class Seen:
    """Every message one stream received, with the wall-clock time of its arrival."""

    messages: list[knowledge_pb2.WatchSpansResponse] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)

    def add(self, message: knowledge_pb2.WatchSpansResponse) -> None:
        self.messages.append(message)
        self.arrivals.append(time.time())


async def watch(
    stub: knowledge_pb2_grpc.KnowledgeServiceAsyncStub,
    request: knowledge_pb2.WatchSpansRequest,
    seen: Seen,
    *,
    timeout_s: float,
    until: Callable[[Seen], bool] = lambda seen: False,
) -> Seen:
    """Follow one stream to its END, or until ``until`` says to hang up."""
    call = stub.WatchSpans(request, timeout=timeout_s)
    try:
        async for message in call:
            seen.add(message)
            if message.type == END or until(seen):
                break
    finally:
        call.cancel()
    return seen


async def watch_many(
    target: str, requests: list[knowledge_pb2.WatchSpansRequest], *, timeout_s: float
) -> list[Seen]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub: knowledge_pb2_grpc.KnowledgeServiceAsyncStub = (
            knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        )
        return list(
            await asyncio.gather(*(watch(stub, r, Seen(), timeout_s=timeout_s) for r in requests))
        )


def order_violations(seen: Seen) -> tuple[int, int]:
    """(backwards, duplicates): span states older than, or the same as, one the stream had
    already shown for that span of that attempt (judged by the span's sequence)."""
    backwards = duplicates = 0
    shown: dict[tuple[int, str], int] = {}
    for message in seen.messages:
        if message.type == SNAPSHOT:
            shown = {k: v for k, v in shown.items() if k[0] != message.attempt}
        for span in message.spans:
            key = (span.attempt, span.name)
            before = shown.get(key)
            if before is not None:
                if span.sequence < before:
                    backwards += 1
                elif span.sequence == before and message.type != END:  # END repeats all
                    duplicates += 1
            shown[key] = max(span.sequence, before or 0)
    return backwards, duplicates


def final_spans(seen: Seen) -> dict[str, knowledge_pb2.Span]:
    spans: dict[str, knowledge_pb2.Span] = {}
    for message in seen.messages:
        if message.type == SNAPSHOT:
            spans = {}
        for span in message.spans:
            if span.name not in spans or span.sequence >= spans[span.name].sequence:
                spans[span.name] = span
    return spans
