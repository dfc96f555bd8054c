"""The installed `sluice` as a process: Ctrl-C during a watch, shell completion; and the
folder walk of `sluice ingest` (globs, the server's file types)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
from sluice.v1 import common_pb2, knowledge_pb2, knowledge_pb2_grpc
from sluice_client._ingest_files import SUPPORTED_EXTENSIONS, unsupported_reason, walk

from core.extensions import SUPPORTED_IMPORT_EXTENSIONS

from .conftest import Serve

# The console script pip installed next to the interpreter running the tests.
SLUICE = Path(sys.executable).parent / "sluice"


class EndlessWatch(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """A watch whose attempt never ends: one snapshot, then the stream stays open."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def WatchSpans(
        self, request: knowledge_pb2.WatchSpansRequest, context: grpc.ServicerContext
    ) -> Iterator[knowledge_pb2.WatchSpansResponse]:
        running = knowledge_pb2.Span(
            attempt=1, name="docreader", status=common_pb2.SPAN_STATUS_RUNNING
        )
        yield knowledge_pb2.WatchSpansResponse(
            type=knowledge_pb2.WATCH_EVENT_TYPE_SNAPSHOT, attempt=1, spans=[running]
        )
        self.release.wait(30)


def test_ctrl_c_during_a_watch_prints_one_line_and_exits_130(serve: Serve) -> None:
    # The generated .pyi marks every RPC abstract; at run time the base answers UNIMPLEMENTED.
    servicer = EndlessWatch()  # type: ignore[abstract]
    target = serve(servicer)
    with subprocess.Popen(
        [str(SLUICE), "--target", target, "watch", "k-1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        # The snapshot's line says the watch is under way.
        assert process.stdout.readline().decode().startswith("docreader    running")
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
        err = process.stderr.read().decode()
    servicer.release.set()
    assert code == 130
    assert err == "interrupted\n"


def test_shell_completion_completes_command_names() -> None:
    env = {**os.environ, "_SLUICE_COMPLETE": "complete_bash", "COMP_WORDS": "sluice ing"}
    done = subprocess.run(
        [str(SLUICE)], env={**env, "COMP_CWORD": "1"}, capture_output=True, timeout=30
    )
    assert done.stdout.decode().split() == ["ingest"]


def test_the_client_imports_the_types_the_server_imports() -> None:
    assert SUPPORTED_EXTENSIONS == SUPPORTED_IMPORT_EXTENSIONS
    assert unsupported_reason(Path("clip.MP4")) == "unsupported type .mp4"
    assert unsupported_reason(Path("Makefile")) == "unsupported type (no extension)"
    assert unsupported_reason(Path("Guide.PDF")) is None


def test_the_walk_is_recursive_sorted_and_filtered(tmp_path: Path) -> None:
    for relative in (
        "b.md",
        "a/z.txt",
        "a/deep/y.md",
        "drafts/x.md",
        ".git/config",
        "a/.hidden.md",
    ):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x")

    def walked(include: list[str], exclude: list[str]) -> list[str]:
        return [c.relative for c in walk(tmp_path, include, exclude)]

    assert walked([], []) == ["a/deep/y.md", "a/z.txt", "b.md", "drafts/x.md"]
    assert walked(["*.md"], ["drafts/*"]) == ["a/deep/y.md", "b.md"]
    assert walked(["z.txt"], []) == ["a/z.txt"]
