"""Prometheus metrics of a real deployment, scraped over HTTP as Prometheus would: in lite
mode the one process's endpoint shows everything; in full mode the API's, the docreader's, the
housekeeper's and a ``sluice-worker --concurrency 2``'s, whose jobs run in the worker processes
it forks, so the stage and provider metrics on its endpoint are the forked processes'
(multiprocess mode).

After an upload and a search: the RPC counter and latency of those methods, the stage
histograms, documents by status, the queue gauges, the model provider's latency and the
docreader's parse durations; every metric deploy/grafana/sluice-dashboard.json queries is
exposed; and a metrics port that cannot be used stops the process with a clear message.
"""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sluice_client import NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import done
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.metrics_scrape import Scrape, scrape, wait_for_value
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from tests.support.processes import REPO, Process, free_port, python, wait_for_port

DASHBOARD = REPO / "deploy" / "grafana" / "sluice-dashboard.json"
HANDBOOK = b"""# Pump room

## Resetting

To reset the pump, hold the red button for five seconds.

## Cleaning

The filter basket is rinsed with warm water every Friday.
"""
STAGE_COUNT = "sluice_stage_duration_seconds_count"
PROVIDER_COUNT = "sluice_provider_request_duration_seconds_count"
PARSE_COUNT = "sluice_docreader_parse_duration_seconds_count"


@dataclass
class Metered:
    stack: Stack
    # The /metrics port of each process: "api" (in lite mode the only one), "docreader",
    # "worker", "housekeeper".
    ports: dict[str, int]

    def scrapes(self) -> dict[str, Scrape]:
        return {name: scrape(port) for name, port in self.ports.items()}


@pytest.fixture(scope="module")
def embedder() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def metered(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Metered]:
    data_dir = tmp_path_factory.mktemp(f"metrics-{request.param}")
    api_port = free_port()
    env = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1", "SLUICE_METRICS_PORT": str(api_port)}
    if request.param == "lite":
        with lite_stack(data_dir, extra_env=env) as stack:
            yield Metered(stack, {"api": api_port})
        return
    docreader_port, worker_port, housekeeper_port = free_port(), free_port(), free_port()
    env["SLUICE_HOUSEKEEPER_METRICS_PORT"] = str(housekeeper_port)
    with full_stack(
        data_dir,
        workers=0,
        extra_env=env,
        docreader_args=("--metrics-port", str(docreader_port)),
    ) as stack:
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        worker = Process(
            "metered-worker",
            python("-m", "workers.main", "--name", f"{prefix}-metered", "--concurrency", "2"),
            {**stack.env, "SLUICE_WORKER_METRICS_PORT": str(worker_port)},
        )
        try:
            wait_for_port(worker_port, 120, worker.proc)
            ports = {
                "api": api_port,
                "docreader": docreader_port,
                "worker": worker_port,
                "housekeeper": housekeeper_port,
            }
            yield Metered(stack, ports)
        finally:
            worker.stop()


@pytest.fixture(scope="module")
def processed(metered: Metered, embedder: EmbeddingServer) -> Metered:
    """An upload processed with the embedding server's model, then searched."""
    embedding = v1.ModelConfig(
        provider="openai", model=embedder.model, base_url=embedder.base_url, dimensions=DIMENSION
    )
    with SluiceClient(metered.stack.target) as client:
        kb = client.create_knowledge_base(
            f"metrics-{uuid.uuid4().hex[:8]}", config=v1.KnowledgeBaseConfig(embedding=embedding)
        )
        knowledge = client.upload_file(kb.id, io.BytesIO(HANDBOOK), file_name="pumps.md")
        assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
        assert client.search("red button", [kb.id])
    return metered


def _rpc(found: Scrape, service: str, method: str, code: str = "OK") -> float:
    return found.value(
        "sluice_rpc_requests_total",
        server="api",
        service=f"sluice.v1.{service}",
        method=method,
        code=code,
    )


def test_the_api_counts_and_times_the_calls(processed: Metered) -> None:
    found = scrape(processed.ports["api"])
    assert _rpc(found, "KnowledgeService", "CreateFromFile") >= 1  # a client stream
    assert _rpc(found, "KnowledgeService", "WatchSpans") >= 1  # a server stream
    assert _rpc(found, "SearchService", "Search") >= 1
    latency = found.value("sluice_rpc_duration_seconds_count", server="api", method="Search")
    assert latency >= 1
    assert found.value("sluice_rpc_duration_seconds_sum", server="api", method="Search") > 0


def test_a_refused_call_is_counted_with_its_status(processed: Metered) -> None:
    with SluiceClient(processed.stack.target) as client, pytest.raises(NotFound):
        client.get_knowledge(str(uuid.uuid4()))
    found = scrape(processed.ports["api"])
    assert _rpc(found, "KnowledgeService", "GetKnowledge", "NOT_FOUND") >= 1


def test_documents_by_status_and_the_queues_are_read_when_scraped(processed: Metered) -> None:
    found = scrape(processed.ports["api"])
    assert found.value("sluice_documents", status="completed") >= 1
    assert found.value("sluice_documents_source_up") == 1
    queues = {labels["queue"] for labels, _ in found.samples("sluice_queue_depth")}
    assert {"default", "postprocess", "low"} <= queues
    for gauge in ("sluice_queue_started", "sluice_queue_failed", "sluice_queue_retries_scheduled"):
        assert found.samples(gauge), gauge
    assert found.value("sluice_queue_source_up") == 1


def test_the_stages_and_the_provider_are_timed_where_the_work_ran(processed: Metered) -> None:
    # Full mode: the forked worker processes did the work; their parent's endpoint shows it.
    where = "worker" if "worker" in processed.ports else "api"
    port = processed.ports[where]
    found = wait_for_value(port, STAGE_COUNT, 1, stage="knowledge_processing", status="done")
    for stage in ("docreader", "chunking", "embedding"):
        assert found.value(STAGE_COUNT, stage=stage, status="done") >= 1, stage
    assert found.value("sluice_stage_duration_seconds_sum", stage="embedding") > 0
    # Text without images: the multimodal stage is skipped, and counted so.
    assert found.value(STAGE_COUNT, stage="multimodal", status="skipped") >= 1
    assert found.value(PROVIDER_COUNT, kind="embedding", outcome="ok") >= 1
    if where == "worker":
        assert found.samples("sluice_queue_depth"), "a worker serves the queue gauges too"


def test_the_docreader_times_its_parses(processed: Metered) -> None:
    port = processed.ports.get("docreader", processed.ports["api"])
    found = scrape(port)
    assert found.value(PARSE_COUNT, format="md", outcome="ok") >= 1
    reads = found.value("sluice_rpc_requests_total", server="docreader", code="OK")
    assert reads >= 1


def test_the_housekeeper_counts_and_times_its_rounds(processed: Metered) -> None:
    # Lite mode's rounds run in the API process, the first one an interval (5 min) after start.
    if "housekeeper" not in processed.ports:
        found = scrape(processed.ports["api"])
        assert "sluice_housekeeping_rounds_total" in found.names()
        return
    port = processed.ports["housekeeper"]
    # Its first round runs as soon as the API has migrated the database.
    found = wait_for_value(port, "sluice_housekeeping_rounds_total", 1, result="ran")
    assert found.value("sluice_housekeeping_rounds_total", result="ran") >= 1
    assert found.value("sluice_housekeeping_round_duration_seconds_count") >= 1
    assert "sluice_housekeeping_rows_total" in found.names()


def test_every_metric_the_dashboard_queries_is_exposed(processed: Metered) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    queried = {
        name
        for panel in dashboard["panels"]
        for target in panel.get("targets", ())
        for name in re.findall(r"\bsluice_[a-z_]+", target["expr"])
    }
    assert len(queried) >= 10
    exposed = set().union(*(found.names() for found in processed.scrapes().values()))
    assert queried <= exposed, sorted(queried - exposed)


def test_a_metrics_port_in_use_stops_the_process(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        api = Process(
            "api",
            python("-m", "server.main", "--mode", "lite", "--address", "127.0.0.1:0"),
            {"SLUICE_DATA_DIR": str(tmp_path), "SLUICE_METRICS_PORT": str(port)},
        )
        try:
            assert api.proc.wait(120) == 1
        finally:
            api.stop()
    assert any(f"cannot serve /metrics on 127.0.0.1:{port}" in line for line in api.lines)


def test_a_housekeeper_metrics_port_in_use_stops_it_before_its_first_round(
    tmp_path: Path,
) -> None:
    nowhere = "127.0.0.1:9"  # never reached: the port is tried first
    env = {
        "SLUICE_DATA_DIR": str(tmp_path),
        "SLUICE_DATABASE_URL": f"postgresql+psycopg://sluice@{nowhere}/none",
        "SLUICE_REDIS_URL": f"redis://{nowhere}/0",
        "SLUICE_MILVUS_URI": f"http://{nowhere}",
        "SLUICE_DOCREADER_ADDRESS": nowhere,
    }
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        housekeeper = Process(
            "housekeeper",
            python("-m", "workers.housekeeping"),
            {**env, "SLUICE_HOUSEKEEPER_METRICS_PORT": str(port)},
        )
        try:
            assert housekeeper.proc.wait(120) == 1
        finally:
            housekeeper.stop()
    assert any(f"cannot serve /metrics on 127.0.0.1:{port}" in line for line in housekeeper.lines)


def test_a_bad_metrics_setting_names_its_variable(tmp_path: Path) -> None:
    result = subprocess.run(
        python("-m", "server.main", "--mode", "lite"),
        env={"SLUICE_DATA_DIR": str(tmp_path), "SLUICE_METRICS_PORT": "70000", "PATH": ""},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "SLUICE_METRICS_PORT must be <= 65535" in result.stderr
