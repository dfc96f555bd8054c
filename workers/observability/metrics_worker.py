"""The ``/metrics`` of a ``sluice-worker``: one endpoint for the process and every worker
process it forks, in prometheus_client's multiprocess mode (their values merged from the
files they write), plus the queues' counts read from Redis when scraped."""

from __future__ import annotations

import logging

from workers.observability.metrics_collectors import QueueCollector, rq_queue_reader
from workers.observability.metrics_endpoint import (
    MetricsEndpoint,
    serve_metrics,
    use_multiprocess,
)
from workers.observability.metrics_settings import MetricsSettings

log = logging.getLogger(__name__)


def serve_worker_metrics(
    config: MetricsSettings, redis_url: str, key_prefix: str
) -> MetricsEndpoint | None:
    """Serve SLUICE_WORKER_METRICS_PORT (None when it is 0, the default). Called before
    the first job and before any worker process is forked, which then write their metrics
    where this endpoint reads them."""
    if not config.worker_metrics_port:
        return None
    folder = use_multiprocess(config.metrics_multiproc_dir)
    endpoint = serve_metrics(
        config.metrics_host,
        config.worker_metrics_port,
        (QueueCollector(rq_queue_reader(redis_url, key_prefix)),),
    )
    if config.metrics_multiproc_dir is None:
        endpoint.made_dir = folder
    log.info("/metrics on port %d (multiprocess files in %s)", endpoint.port, folder)
    return endpoint
