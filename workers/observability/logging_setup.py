"""Structured logs for every Sluice process: structlog renders each record, whether it comes
from structlog or from a plain ``logging.getLogger(...)`` call (stdlib records go through
structlog's ProcessorFormatter), as one JSON object a line on stderr, or as coloured
key=value text for a terminal.

Each record carries its time (UTC), level, logger and, while a span is active, the trace
and span ids, so a line can be found from its trace and the other way round.
"""

from __future__ import annotations

import logging
import sys

import structlog
from opentelemetry import trace
from structlog.typing import EventDict, Processor, WrappedLogger

from workers.settings_telemetry import TelemetrySettings

# Chatty libraries: their INFO is about their own plumbing (milvus-lite's segments, every
# HTTP request, gRPC's channel states), so they speak at WARNING unless DEBUG is asked for.
NOISY_LOGGERS = (
    "milvus_lite",
    "pymilvus",
    "grpc",
    "grpc._cython",
    "urllib3",
    "httpx",
    "httpcore",
    "botocore",
    "boto3",
    "s3transfer",
)


def add_trace_ids(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """The active span's trace and span ids, in the hex form trace viewers show."""
    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event_dict["trace_id"] = format(context.trace_id, "032x")
        event_dict["span_id"] = format(context.span_id, "016x")
    return event_dict


def configure_logging(telemetry: TelemetrySettings) -> None:
    """Route all logging of this process through structlog at ``telemetry.log_level``; call
    once, first thing after the settings are read (it replaces the root logger's handlers)."""
    level = logging.getLevelNamesMapping()[telemetry.log_level]
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        add_trace_ids,
    ]
    renderer: Processor
    if telemetry.log_format == "json":
        renderer = structlog.processors.JSONRenderer()
        final: list[Processor] = [structlog.processors.format_exc_info, renderer]
    else:
        # Colours only for a terminal: piped into a file, escape codes are noise.
        final = [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
    formatter = structlog.stdlib.ProcessorFormatter(
        # ExtraAdder: the fields of a stdlib call's ``extra=`` become fields of the record.
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    noisy_level = logging.DEBUG if level == logging.DEBUG else max(level, logging.WARNING)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(noisy_level)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
