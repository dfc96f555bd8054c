"""A document whose workers die (SIGKILL) while its pictures are being read still ends
completed, every picture read into its ``image_ocr`` chunk — full mode: RQ workers, the
housekeeper, the milvus-lite server, PostgreSQL."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.lifecycle_support import WAIT_S
from tests.e2e.stacks import Stack, full_stack
from tests.e2e.test_multimodal import MANY, _docx
from tests.support.processes import Process, python

# Short, so the test need not wait long for the sweep.
STALE_AFTER_S = 10


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"SLUICE_STALE_AFTER": str(STALE_AFTER_S), "SLUICE_HOUSEKEEPING_INTERVAL": "1"}
    with full_stack(tmp_path_factory.mktemp("multimodal-crash"), extra_env=env) as running:
        yield running


def _images_done(client: SluiceClient, knowledge_id: str) -> int:
    spans = client.get_spans(knowledge_id).spans
    return sum(
        s.name.startswith("multimodal.image.") and s.status == v1.SpanStatus.DONE for s in spans
    )


def test_workers_killed_while_the_pictures_are_read_still_complete_the_document(
    stack: Stack, tmp_path: Path
) -> None:
    with SluiceClient(stack.target) as client:
        kb = client.create_knowledge_base(f"crash-{uuid.uuid4().hex[:8]}")
        path = _docx(tmp_path / "crash.docx", pictures=MANY)
        knowledge = client.upload_file(kb.id, path, enable_multimodel=True)
        deadline = time.monotonic() + WAIT_S
        while _images_done(client, knowledge.id) < 1:
            assert time.monotonic() < deadline, "no picture was ever read"
            time.sleep(0.1)
        assert _images_done(client, knowledge.id) < MANY, "the pictures were read too fast"
        for name in [n for n in stack.processes if n.startswith("worker")]:
            stack.processes[name].kill()
        prefix = stack.env["SLUICE_KEY_PREFIX"]
        stack.processes["worker-after-crash"] = Process(
            "worker-after-crash",
            python("-m", "workers.main", "--name", f"{prefix}-after-crash"),
            stack.env,
        )

        finished = client.wait_until_done(knowledge.id, WAIT_S)
        assert finished.parse_status == v1.ParseStatus.COMPLETED, finished.error_message
        chunks = list(client.list_chunks(knowledge.id))
        ocr = [c for c in chunks if c.chunk_type == v1.ChunkType.IMAGE_OCR]
        assert len(ocr) == MANY, [(c.chunk_type, c.content[:40]) for c in chunks]
        hits = client.search("how many walruses does the lighthouse keeper feed", [kb.id], top_k=3)
        assert hits and hits[0].matched_chunk_type == v1.ChunkType.IMAGE_OCR
