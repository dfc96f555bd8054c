"""Downloading a resource to a path (`sluice fetch TOKEN -o FILE`, download_resource): the
file is replaced only once all of it has arrived, so a refused token or a broken stream
leaves what was there before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sluice.v1 import resource_pb2, resource_pb2_grpc
from sluice_client import SluiceClient, Unavailable
from sluice_client.cli import main
from sluice_client.errors import ProtocolError

from .conftest import Serve

CONTENT = b"%PDF-1.7 the new report " * 2000
BEFORE = b"%PDF-1.4 last week's report"


class FakeResources(resource_pb2_grpc.ResourceServiceServicer):
    """GOOD streams the file; BAD is refused; SHORT sends less than its meta announced;
    BROKEN breaks off after a first piece."""

    def ReadResource(
        self, request: resource_pb2.ReadResourceRequest, context: grpc.ServicerContext
    ) -> Iterator[resource_pb2.ReadResourceResponse]:
        if request.token == "BAD":
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "no such access grant")
        meta = resource_pb2.Resource(
            ref="resource://0b9a7c52-5b8e-4f5e-9d51-4c1b1a1d2e3f",
            size=len(CONTENT),
            content_type="application/pdf",
            file_name="report.pdf",
        )
        yield resource_pb2.ReadResourceResponse(meta=meta)
        half = len(CONTENT) // 2
        yield resource_pb2.ReadResourceResponse(data=CONTENT[:half])
        if request.token == "BROKEN":
            context.abort(grpc.StatusCode.UNAVAILABLE, "storage went away")
        if request.token != "SHORT":
            yield resource_pb2.ReadResourceResponse(data=CONTENT[half:])


@pytest.fixture
def target(serve: Serve) -> str:
    # The generated .pyi marks every RPC abstract; the run-time base answers UNIMPLEMENTED.
    return serve(FakeResources())  # type: ignore[abstract]


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != "report.pdf")


def test_a_refused_fetch_leaves_an_existing_file_alone(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.pdf"
    report.write_bytes(BEFORE)

    code = main(["--target", target, "fetch", "BAD", "-o", str(report)])

    assert code == 5
    assert "PERMISSION_DENIED" in capsys.readouterr().err
    assert report.read_bytes() == BEFORE
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(("token", "error"), [("BROKEN", Unavailable), ("SHORT", ProtocolError)])
def test_a_stream_that_fails_midway_leaves_an_existing_file_alone(
    target: str, tmp_path: Path, token: str, error: type[Exception]
) -> None:
    report = tmp_path / "report.pdf"
    report.write_bytes(BEFORE)

    with SluiceClient(target) as client, pytest.raises(error):
        client.download_resource(token, report)

    assert report.read_bytes() == BEFORE
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("exists", [True, False])
def test_a_complete_fetch_replaces_the_file(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], exists: bool
) -> None:
    report = tmp_path / "report.pdf"
    if exists:
        report.write_bytes(BEFORE)

    code = main(["--target", target, "fetch", "GOOD", "-o", str(report)])

    assert code == 0, capsys.readouterr().err
    assert report.read_bytes() == CONTENT
    assert _leftovers(tmp_path) == []


def test_a_stream_destination_gets_the_bytes(target: str, tmp_path: Path) -> None:
    with SluiceClient(target) as client, (tmp_path / "out.bin").open("wb") as stream:
        meta = client.download_resource("GOOD", stream)
    assert meta.size == len(CONTENT)
    assert (tmp_path / "out.bin").read_bytes() == CONTENT
