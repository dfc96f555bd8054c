"""Statuses for bad requests, health, reflection, ListEngines, unix sockets and the process."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from core.extensions import SUPPORTED_IMPORT_EXTENSIONS
from server.docreader.flags import DEFAULT_MAX_INPUT_MB
from server.docreader.safety.limits import ParseLimits
from server.docreader.server import SERVICE_NAME, build_docreader_server
from workers.docreader_client import DocReaderCallError, DocReaderClient, ReadConfig, ReadOutcome

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("file_type", "content", "engine", "code", "message"),
    [
        ("xyz", b"data", "", "INVALID_ARGUMENT", "does not read file type 'xyz'"),
        ("json", b"{broken", "", "INVALID_ARGUMENT", "invalid JSON in f.json"),
        ("txt", b"\x00\x01binary\x00", "", "INVALID_ARGUMENT", "binary, not text"),
        ("html", b"<p>x</p>", "simple", "INVALID_ARGUMENT", "'simple' does not read"),
        ("docx", b"PK", "markitdown", "INVALID_ARGUMENT", "not a valid zip container"),
        ("md", b"x", "nope", "INVALID_ARGUMENT", "unknown engine 'nope'"),
    ],
)
def test_bad_inputs_become_status_codes(
    client: DocReaderClient,
    file_type: str,
    content: bytes,
    engine: str,
    code: str,
    message: str,
) -> None:
    readers: list[Callable[[], ReadOutcome]] = [
        lambda: client.read(
            content,
            file_name=f"f.{file_type}",
            file_type=file_type,
            config=ReadConfig(engine=engine),
        ),
        lambda: client.read_file(
            io.BytesIO(content),
            file_name=f"f.{file_type}",
            file_type=file_type,
            config=ReadConfig(engine=engine),
        ),
    ]
    for read in readers:
        with pytest.raises(DocReaderCallError) as failure:
            read()
        assert failure.value.code_name == code
        assert message in failure.value.message


def test_url_source_is_not_implemented(stub: docreader_pb2_grpc.DocReaderServiceStub) -> None:
    with pytest.raises(grpc.RpcError) as failure:
        stub.Read(
            docreader_pb2.ReadRequest(url="https://example.com/a.html", file_type="html"),
            timeout=10,
        )
    assert isinstance(failure.value, grpc.Call)
    assert failure.value.code() == grpc.StatusCode.UNIMPLEMENTED


@pytest.mark.parametrize(
    ("frames", "message"),
    [
        ([docreader_pb2.ReadUploadRequest(data=b"early")], "must start with a header"),
        ([], "without a header"),
        (
            [
                docreader_pb2.ReadUploadRequest(
                    header=docreader_pb2.ReadRequest(file_content=b"x", file_type="txt")
                )
            ],
            "must not carry a source",
        ),
        (
            [
                docreader_pb2.ReadUploadRequest(header=docreader_pb2.ReadRequest(file_type="txt")),
                docreader_pb2.ReadUploadRequest(header=docreader_pb2.ReadRequest(file_type="txt")),
            ],
            "second header",
        ),
    ],
)
def test_malformed_uploads_are_invalid_arguments(
    stub: docreader_pb2_grpc.DocReaderServiceStub,
    frames: list[docreader_pb2.ReadUploadRequest],
    message: str,
) -> None:
    with pytest.raises(grpc.RpcError) as failure:
        list(stub.ReadUpload(iter(frames), timeout=10))
    assert isinstance(failure.value, grpc.Call)
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in (failure.value.details() or "")


def test_list_engines_reports_availability(client: DocReaderClient) -> None:
    engines = {engine.name: engine for engine in client.list_engines()}
    assert list(engines) == ["builtin", "simple", "markitdown"]
    builtin = engines["builtin"]
    assert builtin.available and builtin.unavailable_reason == ""
    # Every type the upload gate accepts; this machine has LibreOffice, so none is missing.
    assert set(builtin.file_types) == SUPPORTED_IMPORT_EXTENSIONS
    assert dict(builtin.unavailable_file_types) == {}
    assert builtin.description
    markitdown = engines["markitdown"]
    assert markitdown.available and markitdown.unavailable_reason == ""
    assert {"pdf", "docx", "xlsx", "pptx", "epub"} <= set(markitdown.file_types)
    simple = engines["simple"]
    assert {"md", "txt", "csv", "json", "png", "wav"} <= set(simple.file_types)
    assert "pdf" not in simple.file_types


def test_list_engines_reports_the_largest_file_read_of_each_type(client: DocReaderClient) -> None:
    """Text-read types stop at the text limit, markitdown at four times it, everything else
    at the service's input cap (2 GiB by default): what a URL download is capped at."""
    engines = {engine.name: engine for engine in client.list_engines()}
    text, service = ParseLimits().max_text_bytes, DEFAULT_MAX_INPUT_MB << 20
    builtin = engines["builtin"].max_input_bytes
    text_types = ("txt", "md", "csv", "json", "html", "mhtml")
    assert {t: builtin[t] for t in text_types} == dict.fromkeys(text_types, text)
    assert builtin["pdf"] == builtin["pptx"] == builtin["png"] == service
    assert engines["markitdown"].max_input_bytes["pdf"] == 4 * text


def test_health_is_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in (SERVICE_NAME, ""):
        response = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert response.status == health_pb2.HealthCheckResponse.SERVING
    assert SERVICE_NAME == "sluice.docreader.v1.DocReaderService"


def test_reflection_lists_and_describes_the_service(channel: grpc.Channel) -> None:
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME),
    ]
    listed, described = list(reflection.ServerReflectionInfo(iter(requests), timeout=10))
    names = {service.name for service in listed.list_services_response.service}
    assert {SERVICE_NAME, "grpc.health.v1.Health"} <= names
    files = described.file_descriptor_response.file_descriptor_proto
    assert files and any(b"DocReaderService" in blob for blob in files)


def test_unix_socket_server() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        address = f"unix:{folder}/docreader.sock"
        server, bound = build_docreader_server(
            address, max_workers=2, storage_base_dir=None, max_message_bytes=1 << 20
        )
        assert bound != 0
        server.start()
        try:
            with DocReaderClient(address, timeout_s=10, max_message_bytes=1 << 20) as client:
                assert client.read(b"hello", file_name="a.txt", file_type="txt").markdown == (
                    "hello"
                )
                with pytest.raises(DocReaderCallError) as failure:
                    client.read(storage_ref="local://a.txt", file_name="a.txt", file_type="txt")
                assert failure.value.code_name == "FAILED_PRECONDITION"
        finally:
            server.stop(grace=None).wait()


def test_module_entry_point_serves_until_sigterm() -> None:
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        address = f"unix:{folder}/docreader.sock"
        python_path = os.pathsep.join([str(REPO), str(REPO / "clients/python")])
        env = {**os.environ, "PYTHONPATH": python_path}
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.docreader",
                "--address",
                address,
                "--max-workers",
                "2",
                "--storage-base-dir",
                folder,
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            with grpc.insecure_channel(address) as channel:
                grpc.channel_ready_future(channel).result(timeout=30)
                health = health_pb2_grpc.HealthStub(channel)
                status = health.Check(
                    health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=10
                ).status
                assert status == health_pb2.HealthCheckResponse.SERVING
                (Path(folder) / "n.md").write_text("# stored")
                stub = docreader_pb2_grpc.DocReaderServiceStub(channel)
                result = stub.Read(
                    docreader_pb2.ReadRequest(storage_ref="local://n.md", file_type="md"),
                    timeout=10,
                ).result
                assert result.markdown_content == "# stored"
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            output, _ = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert process.returncode == 0, output.decode(errors="replace")
        assert time.monotonic() - started < 30
        assert b"docreader stopped" in output
