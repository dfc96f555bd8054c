"""A process's ``/metrics`` HTTP endpoint (prometheus_client's own server, in a thread), and
the multiprocess mode of a worker whose jobs run in processes it forks.

Multiprocess mode follows prometheus_client's rules: every process writes its values to
files in one directory, emptied before the first process starts; the endpoint's registry
holds only the MultiProcessCollector, which merges those files, plus the collectors that
read state when scraped; a process that ends is marked dead (its live gauges go).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server, values
from prometheus_client.registry import Collector

from core.errors import SluiceError
from workers.observability.metrics import metrics, metrics_made

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class MetricsPortError(SluiceError, OSError):
    """The ``/metrics`` endpoint could not listen on its address."""


@dataclass
class MetricsEndpoint:
    port: int
    _server: WSGIServer
    _thread: threading.Thread
    _registry: CollectorRegistry
    _collectors: tuple[Collector, ...]
    # A multiprocess directory of our own making, removed with the endpoint.
    made_dir: Path | None = None

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        # The default registry outlives the endpoint (a lite process started again).
        for collector in self._collectors:
            self._registry.unregister(collector)
        if self.made_dir is not None:
            shutil.rmtree(self.made_dir, ignore_errors=True)


def use_multiprocess(directory: Path | None) -> Path:
    """Switch this process, and every process it forks from now on, to multiprocess mode,
    writing to ``directory`` (its metric files of an earlier run deleted) or to a new
    temporary one; before any metric exists,
    as the value class a metric writes through is chosen when it is made."""
    if metrics_made():
        raise RuntimeError("multiprocess mode must be chosen before the first metric is made")
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="sluice-metrics-"))
    else:
        # Only prometheus_client's own files go: the directory is the operator's.
        directory.mkdir(parents=True, exist_ok=True)
        for left in directory.glob("*.db"):
            left.unlink()
    os.environ[MULTIPROC_ENV] = str(directory)
    # prometheus_client picks its value class from this variable once, when imported, and
    # sluice-worker imports it long before: workers.context and workers.wiring reach the
    # metrics through the provider endpoints. Setting the variable before that first import
    # would take workers/main.py importing nearly everything lazily, and one new top-level
    # import anywhere on that path would silently turn multiprocess mode off (each forked
    # worker counting into memory nobody scrapes). So the value class is chosen again here
    # (every metric reads values.ValueClass when it is made), and metrics_made() above turns
    # a late switch into an error instead.
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
    return directory


def multiprocess_dir() -> Path | None:
    folder = os.environ.get(MULTIPROC_ENV)
    return Path(folder) if folder else None


def mark_process_dead() -> None:
    """Bookkeeping of a process that ends, in multiprocess mode (a no-op otherwise)."""
    folder = multiprocess_dir()
    if folder is not None:
        multiprocess.mark_process_dead(os.getpid(), str(folder))  # type: ignore[no-untyped-call]


def serve_metrics(host: str, port: int, collectors: Iterable[Collector] = ()) -> MetricsEndpoint:
    """Serve ``/metrics`` on ``host:port`` (port 0: a free one, the endpoint says which):
    this process's metrics, or every process's in multiprocess mode, and ``collectors``."""
    metrics()  # their help and type show from the first scrape
    folder = multiprocess_dir()
    if folder is None:
        registry = REGISTRY
    else:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, str(folder))  # type: ignore[no-untyped-call]
    added = tuple(collectors)
    for collector in added:
        registry.register(collector)
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        for collector in added:
            registry.unregister(collector)
        raise MetricsPortError(f"cannot serve /metrics on {host}:{port}: {exc.strerror}") from exc
    return MetricsEndpoint(server.server_port, server, thread, registry, added)
