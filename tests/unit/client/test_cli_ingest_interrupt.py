"""Ctrl-C in the middle of `sluice ingest`: one line, exit 130, CancelParse for the document
in flight (not for the one that completed), and the rerun skips what completed before the
interrupt (the state file is written after every file). The server
is a real grpcio server whose watch of one document holds until the test releases it."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sluice.v1 import (
    common_pb2,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    knowledge_pb2,
    knowledge_pb2_grpc,
)
from sluice_client.cli import main

from .conftest import Serve

# The console script pip installed next to the interpreter running the tests.
SLUICE = Path(sys.executable).parent / "sluice"


class HeldKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """Uploads become knowledge `k-<file name>`; the watch of `b.md` holds until released,
    every other one ends at once, completed. CancelParse calls are recorded."""

    def __init__(self, held_upload: str = "") -> None:
        self.uploads: list[str] = []
        self.cancelled: list[str] = []
        self.released = threading.Event()
        # The upload of this file answers only once the client was interrupted.
        self.held_upload = held_upload
        self.upload_arrived = threading.Event()
        self.interrupted = threading.Event()

    def CreateFromFile(
        self,
        request_iterator: Iterator[knowledge_pb2.CreateFromFileRequest],
        context: grpc.ServicerContext,
    ) -> knowledge_pb2.CreateFromFileResponse:
        name = next(request_iterator).header.file_name
        for _ in request_iterator:
            pass
        if name == self.held_upload:
            self.upload_arrived.set()
            self.interrupted.wait(30)
        self.uploads.append(name)
        knowledge = knowledge_pb2.Knowledge(
            id=f"k-{name}", file_name=name, parse_status=common_pb2.PARSE_STATUS_PENDING
        )
        return knowledge_pb2.CreateFromFileResponse(knowledge=knowledge)

    def WatchSpans(
        self, request: knowledge_pb2.WatchSpansRequest, context: grpc.ServicerContext
    ) -> Iterator[knowledge_pb2.WatchSpansResponse]:
        running = knowledge_pb2.Span(
            attempt=1, name="docreader", status=common_pb2.SPAN_STATUS_RUNNING
        )
        yield knowledge_pb2.WatchSpansResponse(
            type=knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT, attempt=1, spans=[running]
        )
        if request.knowledge_id == "k-b.md":
            self.released.wait(30)
        yield knowledge_pb2.WatchSpansResponse(type=knowledge_pb2.WATCH_EVENT_TYPE_END, attempt=1)

    def CancelParse(
        self, request: knowledge_pb2.CancelParseRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CancelParseResponse:
        self.cancelled.append(request.id)
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, parse_status=common_pb2.PARSE_STATUS_CANCELLED
        )
        return knowledge_pb2.CancelParseResponse(knowledge=knowledge)

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        knowledge = knowledge_pb2.Knowledge(
            id=request.id, parse_status=common_pb2.PARSE_STATUS_COMPLETED
        )
        return knowledge_pb2.GetKnowledgeResponse(knowledge=knowledge)


class OneKnowledgeBase(knowledge_base_pb2_grpc.KnowledgeBaseServiceServicer):
    def GetKnowledgeBase(
        self, request: knowledge_base_pb2.GetKnowledgeBaseRequest, context: grpc.ServicerContext
    ) -> knowledge_base_pb2.GetKnowledgeBaseResponse:
        kb = knowledge_base_pb2.KnowledgeBase(id=request.id, name="docs")
        return knowledge_base_pb2.GetKnowledgeBaseResponse(knowledge_base=kb)


def test_ctrl_c_mid_ingest_cancels_the_upload_in_flight_and_the_rerun_skips_what_completed(
    serve: Serve,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The generated .pyi marks every RPC abstract; at run time the bases answer UNIMPLEMENTED.
    knowledge = HeldKnowledge()  # type: ignore[abstract]
    target = serve(knowledge, OneKnowledgeBase())  # type: ignore[abstract]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("first")
    (folder / "b.md").write_text("second")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    argv = ["--target", target, "ingest", "kb-1", str(folder), "--concurrency", "1"]

    with subprocess.Popen(
        [str(SLUICE), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        lines = iter(process.stdout.readline, b"")
        # b.md is in flight (its watch held) once its upload is reported.
        assert next(line for line in lines if line.startswith(b"uploaded b.md"))
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
        err = process.stderr.read().decode()
    knowledge.released.set()
    assert code == 130
    assert err == "interrupted\n"
    assert knowledge.uploads == ["a.md", "b.md"]
    assert knowledge.cancelled == ["k-b.md"]

    assert main(argv) == 0

    out = capsys.readouterr().out.splitlines()
    assert knowledge.uploads == ["a.md", "b.md", "b.md"]
    assert "skipped a.md: already ingested" in out
    assert "completed b.md" in out


def test_ctrl_c_during_an_upload_cancels_the_knowledge_the_upload_answers_with(
    serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # b.md's processing is followed, c.md's upload is under way when Ctrl-C comes: the
    # knowledge it answers with afterwards is cancelled too, not left processing.
    knowledge = HeldKnowledge(held_upload="c.md")  # type: ignore[abstract]
    target = serve(knowledge, OneKnowledgeBase())  # type: ignore[abstract]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "b.md").write_text("second")
    (folder / "c.md").write_text("third")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    argv = ["--target", target, "ingest", "kb-1", str(folder), "--concurrency", "2"]

    with subprocess.Popen(
        [str(SLUICE), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        lines = iter(process.stdout.readline, b"")
        assert next(line for line in lines if line.startswith(b"uploaded b.md"))
        assert knowledge.upload_arrived.wait(30)
        process.send_signal(signal.SIGINT)
        time.sleep(0.5)  # the client is waiting for c.md's answer now
        knowledge.interrupted.set()
        code = process.wait(timeout=30)
        err = process.stderr.read().decode()
        rest = process.stdout.read().decode()
    knowledge.released.set()
    assert (code, err) == (130, "interrupted\n")
    assert sorted(knowledge.cancelled) == ["k-b.md", "k-c.md"]
    assert "c.md" not in rest  # after the Ctrl-C only its one line is printed
