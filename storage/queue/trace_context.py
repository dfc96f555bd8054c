"""A trace carried across the queue: the enqueuer's span context travels with the task
(W3C ``traceparent``/``tracestate`` in a small dict), and the attempt runs in a span that
continues it, so an upload and the worker rounds it causes are one trace.

Only OpenTelemetry's API is used here: without a tracer provider (tracing off) the carrier
stays empty and the span records nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import propagate, trace

from storage.queue.base import AttemptInfo

_tracer = trace.get_tracer("sluice.queue")


def current_carrier() -> dict[str, str]:
    """The active span's context, as the task carries it (empty when there is none)."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


@contextmanager
def task_span(
    handler_path: str, carrier: Mapping[str, str] | None, info: AttemptInfo
) -> Iterator[None]:
    """The span of one attempt of a task, a child of the span that enqueued it."""
    parent = propagate.extract(dict(carrier or {}))
    with _tracer.start_as_current_span(
        f"task {handler_path}",
        context=parent,
        kind=trace.SpanKind.CONSUMER,
        attributes={
            "sluice.task.handler": handler_path,
            "sluice.task.job_id": info.job_id,
            "sluice.task.attempt": info.attempt_number,
            "sluice.task.max_attempts": info.max_attempts,
        },
    ):
        yield
