"""The metrics Sluice's code records, by one name each (the README lists them and
deploy/grafana/sluice-dashboard.json queries them).

They are made on first use, not at import: a worker switches prometheus_client to its
multiprocess mode (workers.observability.metrics_endpoint) before any exists, and the value
class a metric writes through is fixed when it is made. Gauges of state (queue depths,
documents by status) are not here: collectors read them when scraped
(workers.observability.metrics_collectors). Only prometheus_client is imported, so the
docreader may use this module too.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from prometheus_client import Counter, Histogram

# Seconds: from a cached search (milliseconds) to a long document's stage (minutes).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)
STAGE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600)


@dataclass(frozen=True)
class SluiceMetrics:
    rpc_requests: Counter
    rpc_duration: Histogram
    stage_duration: Histogram
    parse_duration: Histogram
    sandbox_kills: Counter
    provider_duration: Histogram
    provider_errors: Counter
    housekeeping_rounds: Counter
    housekeeping_rows: Counter
    housekeeping_round_duration: Histogram


@functools.cache
def metrics() -> SluiceMetrics:
    """The process's metrics, made (and registered in the default registry) on first use."""
    return SluiceMetrics(
        rpc_requests=Counter(
            "sluice_rpc_requests",
            "gRPC calls handled, by server (api or docreader), method and status code",
            ("server", "service", "method", "code"),
        ),
        rpc_duration=Histogram(
            "sluice_rpc_duration_seconds",
            "Time from a call's arrival to its status, streams included",
            ("server", "service", "method"),
            buckets=LATENCY_BUCKETS,
        ),
        stage_duration=Histogram(
            "sluice_stage_duration_seconds",
            "How long a processing stage of a document ran, by how it ended",
            ("stage", "status"),
            buckets=STAGE_BUCKETS,
        ),
        parse_duration=Histogram(
            "sluice_docreader_parse_duration_seconds",
            "How long the docreader's sandbox took to read a file, by format and outcome",
            ("format", "outcome"),
            buckets=STAGE_BUCKETS,
        ),
        sandbox_kills=Counter(
            "sluice_docreader_sandbox_kills",
            "Parses the sandbox stopped at a limit: the parse time limit or the memory cap",
            ("reason",),
        ),
        provider_duration=Histogram(
            "sluice_provider_request_duration_seconds",
            "A model-provider call with its retries, by endpoint kind and outcome",
            ("kind", "outcome"),
            buckets=LATENCY_BUCKETS,
        ),
        provider_errors=Counter(
            "sluice_provider_errors",
            "Model-provider calls that failed, by endpoint kind and reason",
            ("kind", "reason"),
        ),
        housekeeping_rounds=Counter(
            "sluice_housekeeping_rounds",
            "Housekeeping rounds, by result: ran, lock_held (another process's round ran) "
            "or raised",
            ("result",),
        ),
        housekeeping_rows=Counter(
            "sluice_housekeeping_rows",
            "What the housekeeping sweeps did, by sweep and outcome (requeued, failed, "
            "the resource sweep's purges, ...)",
            ("sweep", "outcome"),
        ),
        housekeeping_round_duration=Histogram(
            "sluice_housekeeping_round_duration_seconds",
            "How long a housekeeping round ran, every sweep of it",
            buckets=STAGE_BUCKETS,
        ),
    )


def metrics_made() -> bool:
    """Whether any metric exists yet (the multiprocess switch must come before)."""
    return metrics.cache_info().currsize > 0
