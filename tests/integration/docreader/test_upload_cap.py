"""A real docreader process started with a small ``--max-input-mb``: an upload over it is cut
off with RESOURCE_EXHAUSTED naming the limit, its partial spool is gone, and the process
goes on serving."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import Process, free_port, python, wait_for_port
from workers.docreader_client import DocReaderCallError, DocReaderClient

MAX_INPUT_MB = 1
# Far more than the cap plus anything gRPC buffers in flight: proof that reading stopped.
OFFERED_BYTES = 512 << 20


class _Zeros(io.RawIOBase):
    """``size`` bytes of text made up on demand, counting how many the client pulled."""

    def __init__(self, size: int) -> None:
        self.left = size
        self.pulled = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        count = min(len(buffer), self.left)
        buffer[:count] = b"0" * count
        self.left -= count
        self.pulled += count
        return count


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("docreader-work")


@pytest.fixture(scope="module")
def client(work_dir: Path) -> Iterator[DocReaderClient]:
    port = free_port()
    process = Process(
        "docreader",
        python(
            "-m",
            "server.docreader",
            "--address",
            f"127.0.0.1:{port}",
            "--max-input-mb",
            str(MAX_INPUT_MB),
            "--work-dir",
            str(work_dir),
        ),
        {},
    )
    try:
        wait_for_port(port, 60, process.proc)
        with DocReaderClient(f"127.0.0.1:{port}", timeout_s=120, max_message_bytes=64 << 20) as c:
            yield c
    finally:
        process.stop()


def test_an_upload_over_the_cap_is_refused_and_its_spool_deleted(
    client: DocReaderClient, work_dir: Path
) -> None:
    upload = _Zeros(OFFERED_BYTES)
    with pytest.raises(DocReaderCallError) as refused:
        client.read_file(io.BufferedReader(upload), file_name="big.txt", file_type="txt")
    assert refused.value.code_name == "RESOURCE_EXHAUSTED"
    assert f"input limit of {MAX_INPUT_MB} MiB" in refused.value.message
    assert "--max-input-mb" in refused.value.message
    assert upload.pulled < OFFERED_BYTES // 8, upload.pulled
    assert list(work_dir.iterdir()) == []


def test_an_upload_at_the_cap_is_read_and_the_process_keeps_serving(
    client: DocReaderClient, work_dir: Path
) -> None:
    with pytest.raises(DocReaderCallError):
        client.read_file(
            io.BytesIO(b"x" * ((MAX_INPUT_MB << 20) + 1)), file_name="a.txt", file_type="txt"
        )
    exact = (b"word\n" * ((MAX_INPUT_MB << 20) // 5 + 1))[: MAX_INPUT_MB << 20]
    outcome = client.read_file(io.BytesIO(exact), file_name="b.txt", file_type="txt")
    assert outcome.markdown.startswith("word\nword")
    assert len(outcome.markdown) == len(exact.strip())
    small = client.read_file(io.BytesIO(b"# Still here\n"), file_name="c.md", file_type="md")
    assert small.markdown.strip() == "# Still here"
    assert list(work_dir.iterdir()) == []
