"""One server per port: a second API or docreader on a taken port fails at start with a
clear message instead of sharing it (gRPC's SO_REUSEPORT default), and the first keeps
answering. grpc.health.v1.Health/List answers on both servers, through grpcurl."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support.grpcurl import grpcurl_json
from tests.support.processes import PYTHONPATH, REPO, Process, free_port, python, wait_for_port

SERVING = "SERVING"


def run_to_exit(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return subprocess.run(
        [sys.executable, *args],
        env={**clean, "PYTHONPATH": PYTHONPATH, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture
def docreader_port() -> Iterator[int]:
    port = free_port()
    process = Process(
        "docreader", python("-m", "server.docreader", "--address", f"127.0.0.1:{port}"), {}
    )
    try:
        wait_for_port(port, 60, process.proc)
        yield port
    finally:
        process.stop()


@pytest.fixture
def lite_api_port(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    env = {"SLUICE_DATA_DIR": str(tmp_path / "first"), "SLUICE_HOUSEKEEPING_ENABLED": "false"}
    process = Process("api", python("-m", "server.main", "--address", f"127.0.0.1:{port}"), env)
    try:
        process.wait_for_line(r"listening on", timeout=120)
        yield port
    finally:
        process.stop()


def test_a_second_docreader_on_a_taken_port_fails_at_start(docreader_port: int) -> None:
    address = f"127.0.0.1:{docreader_port}"
    done = run_to_exit(["-m", "server.docreader", "--address", address], {})
    assert done.returncode == 1
    assert (
        f"python -m server.docreader: cannot listen on {address}: the address is already "
        "in use" in done.stderr
    )
    health = grpcurl_json(address, "grpc.health.v1.Health/Check")
    assert health == {"status": SERVING}


def test_a_second_api_on_a_taken_port_fails_at_start(lite_api_port: int, tmp_path: Path) -> None:
    address = f"127.0.0.1:{lite_api_port}"
    done = run_to_exit(
        ["-m", "server.main", "--address", address], {"SLUICE_DATA_DIR": str(tmp_path / "second")}
    )
    assert done.returncode == 1
    assert (
        f"sluice-server: cannot listen on {address}: the address is already in use" in done.stderr
    )
    assert "listening on" not in done.stdout
    assert grpcurl_json(address, "grpc.health.v1.Health/Check") == {"status": SERVING}


def test_a_second_lite_process_on_the_same_data_directory_fails_at_start(
    lite_api_port: int, tmp_path: Path
) -> None:
    socket = tmp_path / "first" / "docreader.sock"
    assert socket.exists()
    done = run_to_exit(
        ["-m", "server.main", "--address", "127.0.0.1:0"],
        {"SLUICE_DATA_DIR": str(tmp_path / "first")},
    )
    assert done.returncode == 1
    assert (
        f"sluice-server: cannot listen on unix:{socket}: another Sluice process is running"
        in done.stderr
    )
    # The first process's docreader socket is still there, still answering.
    with grpc.insecure_channel(f"unix:{socket}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


def test_health_list_answers_on_the_docreader(docreader_port: int) -> None:
    listed = grpcurl_json(f"127.0.0.1:{docreader_port}", "grpc.health.v1.Health/List")
    assert listed == {
        "statuses": {
            "": {"status": SERVING},
            "sluice.docreader.v1.DocReaderService": {"status": SERVING},
        }
    }


def test_health_list_answers_on_the_api(lite_api_port: int) -> None:
    listed = grpcurl_json(f"127.0.0.1:{lite_api_port}", "grpc.health.v1.Health/List")
    statuses = {name: entry["status"] for name, entry in listed["statuses"].items()}
    for service in (
        "",
        "sluice.v1.KnowledgeService",
        "sluice.v1.KnowledgeBaseService",
        "sluice.v1.SearchService",
        "sluice.v1.ResourceService",
    ):
        assert statuses[service] == SERVING
