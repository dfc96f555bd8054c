"""The telemetry settings group: the processes' logs (level, format) and their
OpenTelemetry traces (where they are exported, under which service name, how many kept).

Tracing is off unless an OTLP endpoint is named: no exporter, no span processor, and the
API's no-op tracer, so an unconfigured process pays next to nothing for its spans.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError

from workers.settings_env import describe, read_environment
from workers.settings_groups import SettingsGroup

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def _upper(value: object) -> object:
    # SLUICE_LOG_LEVEL=debug is as clear as DEBUG; a typo still fails, naming the choices.
    return value.strip().upper() if isinstance(value, str) else value


def _collector_url(value: str) -> str:
    # The exporter would take "notaurl" and then fail every export in the background: a
    # process with tracing asked for but nowhere to send it must not start.
    if not value:
        return value
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("an http:// or https:// URL of the collector, e.g. http://collector:4317")
    if port is None:
        raise ValueError("the URL must name the collector's port, e.g. http://collector:4317")
    return value


class TelemetrySettings(SettingsGroup):
    """Logs go to stderr as one JSON object a line (or, ``console``, coloured key=value for
    a terminal). Traces go to ``otlp_endpoint`` (OTLP/gRPC, e.g. http://collector:4317)
    when it is set; ``trace_sample_ratio`` of the traces that start here are kept (a trace
    started upstream keeps its caller's decision)."""

    log_level: Annotated[LogLevel, BeforeValidator(_upper)] = "INFO"
    log_format: Literal["json", "console"] = "json"
    otlp_endpoint: Annotated[str, AfterValidator(_collector_url)] = Field(
        default="", validation_alias="SLUICE_OTLP_ENDPOINT"
    )
    # Empty: the process's own name (sluice-api, sluice-worker, sluice-docreader...).
    otel_service_name: str = Field(default="", validation_alias="SLUICE_OTEL_SERVICE_NAME")
    trace_sample_ratio: float = Field(default=1.0, ge=0.0, le=1.0)


def telemetry_or_exit(program: str, environ: Mapping[str, str] | None = None) -> TelemetrySettings:
    """The telemetry group alone, for a process that reads no other Sluice setting (the
    docreader takes the rest as flags): a bad value ends it with exit status 2 and one line
    naming the variable."""
    source = os.environ if environ is None else environ
    fields = tuple(TelemetrySettings.model_fields)
    try:
        return TelemetrySettings.model_validate(read_environment(TelemetrySettings, source, fields))
    except ValidationError as exc:
        print(f"{program}: {describe(exc, TelemetrySettings, {}, ())}", file=sys.stderr)
        raise SystemExit(2) from None
