"""Hostile files against a real docreader process: each one ends as a clear INVALID_ARGUMENT
naming the cause, the process stays up, and its memory stays flat (parses run in capped
children)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.support.hostile import GENERATORS
from tests.support.processes import Process, free_port, python, wait_for_port
from workers.docreader_client import DocReaderCallError, DocReaderClient

MEMORY_CAP_MB = 1536
# The server process may grow this much over all the hostile reads together.
SERVER_GROWTH_BYTES = 150 << 20


@pytest.fixture(scope="module")
def docreader() -> Iterator[tuple[Process, DocReaderClient]]:
    port = free_port()
    process = Process(
        "docreader",
        python(
            "-m",
            "server.docreader",
            "--address",
            f"127.0.0.1:{port}",
            "--memory-cap-mb",
            str(MEMORY_CAP_MB),
            "--parse-timeout-s",
            "120",
        ),
        {},
    )
    try:
        wait_for_port(port, 60, process.proc)
        with DocReaderClient(
            f"127.0.0.1:{port}", timeout_s=180, max_message_bytes=64 << 20
        ) as client:
            # Warm up: the first read starts the forkserver with the parsers imported.
            client.read(b"warm", file_name="w.txt", file_type="txt")
            yield process, client
    finally:
        process.stop()


@pytest.fixture(scope="module")
def baseline_rss(docreader: tuple[Process, DocReaderClient]) -> int:
    return int(psutil.Process(docreader[0].pid).memory_info().rss)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_a_hostile_file_fails_clearly_and_the_docreader_survives(
    name: str,
    docreader: tuple[Process, DocReaderClient],
    baseline_rss: int,
    tmp_path: Path,
) -> None:
    process, client = docreader
    hostile = GENERATORS[name](tmp_path)
    with pytest.raises(DocReaderCallError) as caught:
        client.read_file(hostile.path)
    assert caught.value.code_name == "INVALID_ARGUMENT", caught.value.message
    assert hostile.hint.lower() in caught.value.message.lower(), caught.value.message
    assert process.proc.poll() is None
    # Still serving, and still small.
    assert client.read(b"# Fine", file_name="ok.md", file_type="md").markdown == "# Fine"
    grown = psutil.Process(process.pid).memory_info().rss - baseline_rss
    assert grown < SERVER_GROWTH_BYTES, f"the docreader grew {grown >> 20} MiB"
