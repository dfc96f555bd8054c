"""Scraping a process's Prometheus ``/metrics`` over HTTP, as Prometheus would, and reading
the samples and the names it exposes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

# The sample names each metric type exposes besides its own name.
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("_count", "_sum", "_created"),
}


@dataclass(frozen=True)
class Scrape:
    text: str

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples ``name`` whose labels include ``labels`` (0 if none)."""
        return sum(value for found, value in self.samples(name) if labels.items() <= found.items())

    def samples(self, name: str) -> list[tuple[Mapping[str, str], float]]:
        return [
            (sample.labels, sample.value)
            for family in text_string_to_metric_families(self.text)
            for sample in family.samples
            if sample.name == name
        ]

    def names(self) -> set[str]:
        """Every sample name exposed, also of metrics with no sample yet (their help and
        type lines name them)."""
        names: set[str] = set()
        for family in text_string_to_metric_families(self.text):
            names.add(family.name)
            names.update(family.name + suffix for suffix in _SUFFIXES.get(family.type, ()))
            names.update(sample.name for sample in family.samples)
        return names


def scrape(port: int, timeout: float = 30.0) -> Scrape:
    """``GET /metrics`` on 127.0.0.1:``port``, waiting for the endpoint to come up."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
            answer.raise_for_status()
            return Scrape(answer.text)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def wait_for_value(
    port: int, name: str, at_least: float, timeout: float = 60.0, **labels: str
) -> Scrape:
    """Scrape until ``name`` (with ``labels``) reaches ``at_least``; the last scrape."""
    deadline = time.monotonic() + timeout
    while True:
        found = scrape(port)
        if found.value(name, **labels) >= at_least or time.monotonic() > deadline:
            return found
        time.sleep(0.5)
