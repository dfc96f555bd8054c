"""OpenTelemetry traces: the tracer provider of a process, exporting over OTLP/gRPC when an
endpoint is configured (SLUICE_OTLP_ENDPOINT) and doing nothing otherwise.

Off, no provider is installed: OpenTelemetry's API then hands out non-recording spans and
injects no context, so the instrumented code costs a few function calls.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

from workers.settings_telemetry import TelemetrySettings


def configure_tracing(telemetry: TelemetrySettings, default_service: str) -> bool:
    """Install the process's tracer provider when tracing is configured; True if it is.
    Spans are batched and sent in the background; the provider flushes them at exit."""
    if not telemetry.otlp_endpoint:
        return False
    service = telemetry.otel_service_name or default_service
    provider = TracerProvider(
        resource=Resource.create({SERVICE_NAME: service}),
        sampler=ParentBased(TraceIdRatioBased(telemetry.trace_sample_ratio)),
    )
    endpoint = telemetry.otlp_endpoint
    exporter = OTLPSpanExporter(endpoint=endpoint, insecure=not endpoint.startswith("https://"))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return True


def tracing_enabled() -> bool:
    """Whether this process records spans (a provider was installed by configure_tracing)."""
    return isinstance(trace.get_tracer_provider(), TracerProvider)


def flush_tracing(timeout_ms: int = 5000) -> None:
    """Send the spans still batched now: for a process that ends without running its atexit
    hooks, as a forked worker child does (multiprocessing ends it with os._exit)."""
    provider = trace.get_tracer_provider()
    if isinstance(provider, TracerProvider):
        provider.force_flush(timeout_ms)
