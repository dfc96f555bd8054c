"""Bad input and foreign tenants get clear statuses; the process stays up."""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Iterator

import grpc
import pytest
from sluice_client import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    SluiceClient,
    Unauthenticated,
)
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, lite_stack
from tests.support.processes import PYTHONPATH, REPO, python


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("sluice-auth")
    with lite_stack(data_dir, {"SLUICE_AUTH_REQUIRED": "true"}) as running:
        yield running


def _create_key(stack: Stack, tenant: str) -> str:
    out = subprocess.run(
        python("-m", "server.admin", "create-key", tenant),
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
        env={**stack.env, "PYTHONPATH": PYTHONPATH},
    ).stdout
    found = re.search(r"api key (\S+)", out)
    assert found, out
    return found.group(1)


def test_calls_without_a_valid_key_are_unauthenticated(stack: Stack) -> None:
    with SluiceClient(stack.target) as anonymous, pytest.raises(Unauthenticated):
        anonymous.create_knowledge_base("nope")
    with (
        SluiceClient(stack.target, api_key="sk-sluice-made-up") as forged,
        pytest.raises(Unauthenticated),
    ):
        list(forged.list_knowledge_bases())


def test_a_tenant_cannot_see_another_tenants_knowledge_base(stack: Stack) -> None:
    alice, bob = _create_key(stack, "alice"), _create_key(stack, "bob")
    with (
        SluiceClient(stack.target, api_key=alice) as a,
        SluiceClient(stack.target, api_key=bob) as b,
    ):
        kb = a.create_knowledge_base("private")
        with pytest.raises(NotFound):
            b.get_knowledge_base(kb.id)
        with pytest.raises(NotFound):
            b.upload_file(kb.id, io.BytesIO(b"# x"), file_name="x.md")
        assert [k.id for k in b.list_knowledge_bases()] == []
        with pytest.raises(AlreadyExists):
            a.create_knowledge_base("private")
        assert b.create_knowledge_base("private").id != kb.id


def test_bad_requests_name_the_field(stack: Stack) -> None:
    key = _create_key(stack, "carol")
    with SluiceClient(stack.target, api_key=key) as client:
        with pytest.raises(InvalidArgument) as empty_name:
            client.create_knowledge_base("  ")
        assert empty_name.value.field_violations[0][0] == "name"
        config = v1.KnowledgeBaseConfig(
            chunking=v1.ChunkingConfig(chunk_size=100, chunk_overlap=100)
        )
        with pytest.raises(InvalidArgument) as overlap:
            client.create_knowledge_base("overlap", config=config)
        assert overlap.value.field_violations[0][0] == "config.chunking.chunk_overlap"
        with pytest.raises(InvalidArgument) as no_query:
            client.search("", ["whatever"])
        assert no_query.value.field_violations[0][0] == "query"


def test_an_upload_without_a_header_frame_is_refused(stack: Stack) -> None:
    from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc

    key = _create_key(stack, "dave")
    with grpc.insecure_channel(stack.target) as channel:
        stub = knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        frames = iter([knowledge_pb2.CreateFromFileRequest(data=b"bytes first")])
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateFromFile(frames, metadata=(("authorization", f"Bearer {key}"),))
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "first frame must be a header" in str(refused.value.details())
    # The process is still serving.
    with SluiceClient(stack.target, api_key=key) as client:
        assert client.create_knowledge_base("still-up").name == "still-up"


def test_lite_mode_refuses_a_revoked_key_at_the_next_call(stack: Stack) -> None:
    key = _create_key(stack, "erin")
    with SluiceClient(stack.target, api_key=key) as client:
        assert list(client.list_knowledge_bases()) == []
        listed = subprocess.run(
            python("-m", "server.admin", "list-keys"),
            cwd=REPO,
            check=True,
            capture_output=True,
            text=True,
            env={**stack.env, "PYTHONPATH": PYTHONPATH},
        ).stdout
        key_id = next(line.split("\t")[0] for line in listed.splitlines() if "erin" in line)
        subprocess.run(
            python("-m", "server.admin", "revoke-key", key_id),
            cwd=REPO,
            check=True,
            env={**stack.env, "PYTHONPATH": PYTHONPATH},
        )
        # Lite mode caches no key (its admin tool is another process): refused at once.
        with pytest.raises(Unauthenticated):
            list(client.list_knowledge_bases())
