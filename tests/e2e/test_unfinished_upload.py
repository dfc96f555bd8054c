"""An upload the client did not finish never becomes a document.

A client process streams part of a file (or all of it) and then, instead of half-closing,
cancels the call, lets its deadline pass, is killed, or sends a frame over the server's
message size limit. Afterwards no knowledge row, stored file (staging included), resource
record, queued job or index row may remain, in lite and in full mode. The header's
declared size and MD5 are checked the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import redis
import sqlalchemy as sa
from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc
from sluice_client import DataLoss, InvalidArgument, ResourceExhausted, SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.errors import translated_rpc_errors

from tests.e2e.stacks import MAX_UPLOAD_BYTES, Stack, full_stack, lite_stack
from tests.support.databases import REDIS_URL
from tests.support.processes import PYTHONPATH, REPO, Process, python
from tests.support.waiting import wait_until

# A gRPC message limit under the upload limit, so one frame can be too big for gRPC alone.
MAX_MESSAGE_BYTES = 1 << 20
PHRASE = "The cormorant ferryman rows the brass lantern across the reservoir at midnight."
WAIT_S = 180


def _body() -> bytes:
    """580005 bytes of Markdown (the size of the upload the issue saw kept 580000 of)."""
    lines = [f"# Reservoir log\n\n{PHRASE}\n"]
    n = 0
    while sum(map(len, lines)) < 580_005:
        lines.append(f"Entry {n}: the keeper measured the spillway at {n % 97} centimetres.\n")
        n += 1
    return "".join(lines).encode()[:580_005]


BODY = _body()


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    env = {"SLUICE_MAX_MESSAGE_BYTES": str(MAX_MESSAGE_BYTES)}
    with make(tmp_path_factory.mktemp(f"unfinished-{request.param}"), extra_env=env) as running:
        yield running


@pytest.fixture(scope="module")
def kb(client: SluiceClient) -> v1.KnowledgeBase:
    return client.create_knowledge_base(f"unfinished-{uuid.uuid4().hex[:8]}")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("upload") / "reservoir.md"
    path.write_bytes(BODY)
    return path


@dataclass(frozen=True)
class Leftovers:
    """Everything an upload could leave behind, counted across the whole deployment."""

    knowledge_rows: int
    resource_records: int
    files: frozenset[Path]
    queued_jobs: int


def _database_url(stack: Stack) -> str:
    return (
        stack.env.get("SLUICE_DATABASE_URL")
        or f"sqlite:///{stack.storage_dir.parent / 'sluice.db'}"
    )


def leftovers(stack: Stack) -> Leftovers:
    engine = sa.create_engine(_database_url(stack))
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT count(*) FROM knowledges")).scalar_one()
            records = conn.execute(sa.text("SELECT count(*) FROM storage_resources")).scalar_one()
    finally:
        engine.dispose()
    jobs = 0
    if stack.mode == "full":
        with redis.Redis.from_url(REDIS_URL) as r:
            jobs = sum(1 for _ in r.scan_iter(f"rq:job:{stack.env['SLUICE_KEY_PREFIX']}-*"))
    # Staging files count too: an aborted upload must not leave its partial bytes anywhere.
    files = frozenset(p for p in stack.storage_dir.rglob("*") if p.is_file())
    return Leftovers(rows, records, files, jobs)


def _cut_upload(stack: Stack, kb: v1.KnowledgeBase, source: Path, cut: int, how: str) -> str:
    """Runs the cutting client; returns the status its call ended with ("" when killed)."""
    args = [stack.target, kb.id, str(source), str(cut), how, str(2 * MAX_MESSAGE_BYTES)]
    command = python("-m", "tests.e2e.upload_cutter", *args)
    if how == "hang":
        client = Process("cutter", command, {})
        try:
            client.wait_for_line("^SENT$", timeout=60)
            # Killed mid-call: the kernel closes its socket, the server sees the stream cut.
            time.sleep(0.5)
            client.kill()
        finally:
            client.stop()
        return ""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    ended = re.search(r"^ENDED (\w+)$", done.stdout, re.MULTILINE)
    assert ended is not None, done.stdout + done.stderr
    return ended.group(1)


CUTS = {
    "header only": 0,
    "one frame": 64 << 10,
    "all but five bytes": len(BODY) - 5,
    "every byte, no half-close": len(BODY),
}


@pytest.mark.parametrize("how", ["cancel", "deadline", "hang"])
@pytest.mark.parametrize("cut", list(CUTS.values()), ids=list(CUTS))
def test_a_cut_upload_leaves_nothing(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase, source: Path, cut: int, how: str
) -> None:
    before = leftovers(stack)
    ended = _cut_upload(stack, kb, source, cut, how)
    assert ended in {"", "CANCELLED", "DEADLINE_EXCEEDED"}
    # The server aborts the upload when it sees the call end: give it a moment, then check
    # it stays so (a commit racing the abort would show up as a row or file here).
    wait_until(lambda: leftovers(stack) == before, 20, "the aborted upload to be gone")
    time.sleep(1.0)
    assert leftovers(stack) == before
    assert list(client.list_knowledge(kb.id)) == []
    assert client.search(PHRASE, [kb.id], top_k=3) == []


def test_a_frame_over_the_grpc_message_limit_leaves_nothing(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase, source: Path
) -> None:
    before = leftovers(stack)
    # A frame of bytes first: what stops the commit must be the cut, not an empty file.
    assert _cut_upload(stack, kb, source, 64 << 10, "oversize") == "RESOURCE_EXHAUSTED"
    wait_until(lambda: leftovers(stack) == before, 20, "the refused upload to be gone")
    time.sleep(1.0)
    assert leftovers(stack) == before


def _upload(stack: Stack, header: knowledge_pb2.FileHeader, body: bytes) -> None:
    """The header exactly as given (the client's own upload_file fills the size in), then
    the body, half-closed normally."""
    frames = [knowledge_pb2.CreateFromFileRequest(header=header)]
    frames += [
        knowledge_pb2.CreateFromFileRequest(data=body[i : i + 65536])
        for i in range(0, len(body), 65536)
    ]
    with grpc.insecure_channel(stack.target) as channel, translated_rpc_errors():
        knowledge_pb2_grpc.KnowledgeServiceStub(channel).CreateFromFile(iter(frames))


def _header(
    kb: v1.KnowledgeBase, size: int | None = None, md5: str = ""
) -> knowledge_pb2.FileHeader:
    return knowledge_pb2.FileHeader(
        knowledge_base_id=kb.id, file_name="reservoir.md", size=size, md5=md5
    )


@pytest.mark.parametrize(
    ("size", "md5"),
    [
        (len(BODY) + 1, ""),
        (len(BODY) - 1, ""),
        (None, hashlib.md5(b"another file").hexdigest()),
        (len(BODY), hashlib.md5(BODY[:-1]).hexdigest()),
    ],
    ids=["size too big", "size too small", "other md5", "right size, other md5"],
)
def test_a_declared_size_or_md5_that_does_not_match_is_data_loss(
    stack: Stack, kb: v1.KnowledgeBase, size: int | None, md5: str
) -> None:
    before = leftovers(stack)
    with pytest.raises(DataLoss) as caught:
        _upload(stack, _header(kb, size, md5), BODY)
    reasons = {getattr(d, "reason", "") for d in caught.value.details}
    assert reasons & {"UPLOAD_SIZE_MISMATCH", "UPLOAD_MD5_MISMATCH"}
    wait_until(lambda: leftovers(stack) == before, 20, "the refused upload to be gone")


def test_a_malformed_md5_or_a_declared_size_over_the_limit_is_refused_up_front(
    stack: Stack, kb: v1.KnowledgeBase
) -> None:
    before = leftovers(stack)
    with pytest.raises(InvalidArgument) as caught:
        _upload(stack, _header(kb, md5="not-a-digest"), BODY)
    assert caught.value.field_violations[0][0] == "header.md5"
    with pytest.raises(ResourceExhausted):
        _upload(stack, _header(kb, size=MAX_UPLOAD_BYTES + 1), b"")
    assert leftovers(stack) == before


def test_the_finished_upload_is_kept_and_found(
    stack: Stack, client: SluiceClient, kb: v1.KnowledgeBase, source: Path
) -> None:
    """After all the cut attempts the same file uploads as new (nothing was kept to collide
    with), with its declared size and MD5, and processing finds the phrase the cut uploads
    carried — so the checks above would have seen a kept one."""
    # Big chunks: few to embed, so processing is quick even on a busy machine.
    big_chunks = v1.ProcessConfig(chunking=v1.ChunkingConfig(chunk_size=16_000, chunk_overlap=0))
    knowledge = client.upload_file(
        kb.id, source, md5=hashlib.md5(BODY).hexdigest(), process_config=big_chunks
    )
    assert knowledge.file_size == len(BODY)
    done = client.wait_until_done(knowledge.id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED
    hits = client.search(PHRASE, [kb.id], top_k=3)
    assert [hit.knowledge_id for hit in hits][:1] == [knowledge.id]
