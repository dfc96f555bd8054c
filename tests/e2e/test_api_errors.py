"""Bad input and foreign tenants get clear statuses; the process stays up."""

from __future__ import annotations

import io
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import field_mask_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from sluice.v1 import (
    common_pb2,
    config_pb2,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    knowledge_pb2,
    knowledge_pb2_grpc,
)
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


def _admin(stack: Stack, *args: str) -> str:
    """What the admin tool prints for ``args``, run against the stack's database."""
    return subprocess.run(
        python("-m", "server.admin", *args),
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
        env={**stack.env, "PYTHONPATH": PYTHONPATH},
    ).stdout


def _create_key(stack: Stack, tenant: str) -> str:
    out = _admin(stack, "create-key", tenant)
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


# Limits at the edge: each bad value is INVALID_ARGUMENT naming its field, over real gRPC,
# with the protobuf stubs on a channel with gRPC's default limits (4 MiB received).


def _violations(error: grpc.RpcError) -> list[str]:
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
    status = rpc_status.from_call(error)
    assert status is not None, error
    fields = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            fields += [v.field for v in bad_request.field_violations]
    return fields


class _Api:
    """The sluice.v1 stubs of one tenant, on a channel with gRPC's default options."""

    def __init__(self, stack: Stack, tenant: str) -> None:
        self._channel = grpc.insecure_channel(stack.target)
        self.auth = (("authorization", f"Bearer {_create_key(stack, tenant)}"),)
        self.kbs = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(self._channel)
        self.knowledge = knowledge_pb2_grpc.KnowledgeServiceStub(self._channel)

    def create_kb(self, name: str, config: config_pb2.KnowledgeBaseConfig | None = None) -> str:
        request = knowledge_base_pb2.CreateKnowledgeBaseRequest(name=name, config=config)
        return str(self.kbs.CreateKnowledgeBase(request, metadata=self.auth).knowledge_base.id)

    def upload(self, header: knowledge_pb2.FileHeader, data: bytes = b"# Title\n\ntext") -> Any:
        frames = iter(
            [
                knowledge_pb2.CreateFromFileRequest(header=header),
                knowledge_pb2.CreateFromFileRequest(data=data),
            ]
        )
        return self.knowledge.CreateFromFile(frames, metadata=self.auth).knowledge

    def refused(self, call: Callable[[], object]) -> list[str]:
        with pytest.raises(grpc.RpcError) as refused:
            call()
        return _violations(refused.value)

    def knowledge_ids(self, kb_id: str) -> list[str]:
        request = knowledge_pb2.ListKnowledgeRequest(knowledge_base_id=kb_id)
        page = self.knowledge.ListKnowledge(request, metadata=self.auth)
        return [k.id for k in page.knowledges]

    def close(self) -> None:
        self._channel.close()


@pytest.fixture(scope="module")
def api(stack: Stack) -> Iterator[_Api]:
    tenant = _Api(stack, "limits")
    yield tenant
    tenant.close()


# Indexing off: documents finish at chunking, without the embedding model.
_NO_INDEX = config_pb2.IndexingStrategy(vector_enabled=False, keyword_enabled=False)


def _chunking(**fields: Any) -> config_pb2.ProcessConfig:
    return config_pb2.ProcessConfig(chunking=config_pb2.ChunkingConfig(**fields))


def test_knowledge_base_configs_the_chunker_refuses_are_invalid_argument(api: _Api) -> None:
    for chunking, field in (
        # int32 min once overflowed the default overlap (size - 1) and answered INTERNAL.
        ({"chunk_size": -(2**31)}, "chunk_size"),
        ({"chunk_size": 1, "chunk_overlap": 1}, "chunk_overlap"),
        ({"separators": [""]}, "separators[0]"),
        (
            {"enable_parent_child": True, "parent_chunk_size": 100, "child_chunk_size": 200},
            "child_chunk_size",
        ),
    ):
        config = config_pb2.KnowledgeBaseConfig(chunking=config_pb2.ChunkingConfig(**chunking))
        assert api.refused(lambda c=config: api.create_kb("bad-config", c)) == [  # type: ignore[misc]
            f"config.chunking.{field}"
        ], chunking
    # An update of the size alone is checked against the overlap the config keeps (64).
    kb_id = api.create_kb("update-me")
    update = knowledge_base_pb2.UpdateKnowledgeBaseRequest(
        id=kb_id,
        config=config_pb2.KnowledgeBaseConfig(chunking=config_pb2.ChunkingConfig(chunk_size=1)),
        update_mask=field_mask_pb2.FieldMask(paths=["config.chunking.chunk_size"]),
    )
    assert api.refused(lambda: api.kbs.UpdateKnowledgeBase(update, metadata=api.auth)) == [
        "config.chunking.chunk_overlap"
    ]


def test_a_document_whose_effective_config_is_bad_is_never_stored_or_queued(
    api: _Api, stack: Stack
) -> None:
    kb_id = api.create_kb("effective", config_pb2.KnowledgeBaseConfig(indexing=_NO_INDEX))
    stored_before = sorted(stack.storage_dir.rglob("*"))
    for override, field in (
        # The knowledge base's overlap (64) under an upload's size of 1.
        (_chunking(chunk_size=1), "chunk_overlap"),
        # chunk_size 0 inherits 512, which an overlap of 600 does not fit.
        (_chunking(chunk_size=0, chunk_overlap=600), "chunk_overlap"),
        (_chunking(separators=["\n", ""]), "separators[1]"),
        (_chunking(enable_parent_child=True, child_chunk_size=32), "child_chunk_size"),
        (_chunking(chunk_size=-(2**31)), "chunk_size"),
    ):
        header = knowledge_pb2.FileHeader(
            knowledge_base_id=kb_id, file_name="doc.md", process_config=override
        )
        assert api.refused(lambda h=header: api.upload(h)) == [  # type: ignore[misc]
            f"header.process_config.chunking.{field}"
        ], override
        manual = knowledge_pb2.CreateManualRequest(
            knowledge_base_id=kb_id,
            title="t",
            content="# x",
            process_config=override,
            status=knowledge_pb2.MANUAL_STATUS_PUBLISH,
        )
        assert api.refused(
            lambda m=manual: api.knowledge.CreateManual(m, metadata=api.auth)  # type: ignore[misc]
        ) == [f"process_config.chunking.{field}"]
    assert api.knowledge_ids(kb_id) == []
    assert sorted(stack.storage_dir.rglob("*")) == stored_before


def test_a_reparse_with_bad_overrides_leaves_the_round_alone(api: _Api) -> None:
    kb_id = api.create_kb("reparse", config_pb2.KnowledgeBaseConfig(indexing=_NO_INDEX))
    created = api.upload(knowledge_pb2.FileHeader(knowledge_base_id=kb_id, file_name="r.md"))
    request = knowledge_pb2.ReparseRequest(id=created.id, process_config=_chunking(chunk_size=1))
    assert api.refused(lambda: api.knowledge.Reparse(request, metadata=api.auth)) == [
        "process_config.chunking.chunk_overlap"
    ]
    get = knowledge_pb2.GetKnowledgeRequest(id=created.id)
    assert api.knowledge.GetKnowledge(get, metadata=api.auth).knowledge.attempt == 1


def test_header_fields_over_their_limits_are_invalid_argument(api: _Api, stack: Stack) -> None:
    kb_id = api.create_kb("header-limits")
    stored_before = sorted(stack.storage_dir.rglob("*"))
    cases: list[tuple[dict[str, Any], str]] = [
        ({"metadata": {"k": "v" * (4096 + 1)}}, "header.metadata['k']"),
        ({"metadata": {f"k{i}": "v" * 4000 for i in range(5)}}, "header.metadata"),
        ({"metadata": {f"k{i}": "" for i in range(65)}}, "header.metadata"),
        ({"metadata": {"x" * 129: "v"}}, f"header.metadata[{'x' * 40 + '…'!r}]"),
        ({"file_name": "n" * 253 + ".md"}, "header.file_name"),
        ({"tag_ids": ["t" * 65]}, "header.tag_ids"),
        ({"title": "t" * 1025}, "header.title"),
    ]
    for header_fields, field in cases:
        header = knowledge_pb2.FileHeader(
            knowledge_base_id=kb_id, **{"file_name": "doc.md", **header_fields}
        )
        assert api.refused(lambda h=header: api.upload(h)) == [field], field  # type: ignore[misc]
    assert api.knowledge_ids(kb_id) == []
    assert sorted(stack.storage_dir.rglob("*")) == stored_before


def test_page_sizes_are_clamped_and_page_tokens_are_opaque(api: _Api) -> None:
    kb_id = api.create_kb("pages", config_pb2.KnowledgeBaseConfig(indexing=_NO_INDEX))
    for n in range(3):
        api.upload(
            knowledge_pb2.FileHeader(knowledge_base_id=kb_id, file_name=f"p{n}.md"),
            f"# page {n}".encode(),
        )

    def listed(size: int, token: str = "", keyword: str = "") -> Any:
        request = knowledge_pb2.ListKnowledgeRequest(
            knowledge_base_id=kb_id, page_size=size, page_token=token, keyword=keyword
        )
        return api.knowledge.ListKnowledge(request, metadata=api.auth)

    assert len(listed(100_000).knowledges) == 3  # clamped, not refused
    first = listed(2)
    assert len(first.knowledges) == 2 and first.next_page_token
    assert not first.next_page_token.isdigit()
    assert len(listed(2, first.next_page_token).knowledges) == 1
    assert api.refused(lambda: listed(-1)) == ["page_size"]
    for forged in ("2", first.next_page_token[:-3] + "AAA"):
        assert api.refused(lambda t=forged: listed(2, t)) == ["page_token"]  # type: ignore[misc]
    # A token belongs to its query: other filters do not take it.
    assert api.refused(lambda: listed(2, first.next_page_token, keyword="p")) == ["page_token"]
    assert api.refused(lambda: listed(2, keyword="k" * 257)) == ["keyword"]


def test_no_list_response_exceeds_the_default_message_limit(api: _Api) -> None:
    """About 6.5 MiB of chunks: before pages had a byte budget, ListChunks at page size
    1000 answered more than a default client may receive (RESOURCE_EXHAUSTED)."""
    config = config_pb2.KnowledgeBaseConfig(
        indexing=_NO_INDEX,
        chunking=config_pb2.ChunkingConfig(chunk_size=16_384, chunk_overlap=0),
    )
    kb_id = api.create_kb("heavy-chunks", config)
    words = " ".join("字" * 15 for _ in range(140_000))  # 2.24 M characters, 6.5 MiB
    manual = knowledge_pb2.CreateManualRequest(
        knowledge_base_id=kb_id,
        title="heavy",
        content=words,
        status=knowledge_pb2.MANUAL_STATUS_PUBLISH,
    )
    created = api.knowledge.CreateManual(manual, metadata=api.auth).knowledge
    _wait_completed(api, created.id)
    token, pages, chunks = "", 0, 0
    while True:
        request = knowledge_pb2.ListChunksRequest(
            knowledge_id=created.id, page_size=1000, page_token=token
        )
        page = api.knowledge.ListChunks(request, metadata=api.auth)
        assert page.ByteSize() < 4 << 20
        pages, chunks, token = pages + 1, chunks + len(page.chunks), page.next_page_token
        if not token:
            break
    assert pages >= 2 and chunks == page.total > 130


def _wait_completed(api: _Api, knowledge_id: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    request = knowledge_pb2.GetKnowledgeRequest(id=knowledge_id)
    while time.monotonic() < deadline:
        knowledge = api.knowledge.GetKnowledge(request, metadata=api.auth).knowledge
        if knowledge.parse_status == common_pb2.PARSE_STATUS_COMPLETED:
            return
        assert knowledge.parse_status != common_pb2.PARSE_STATUS_FAILED, knowledge.error_message
        time.sleep(0.5)
    raise AssertionError(f"knowledge {knowledge_id} did not complete in {timeout} s")


def test_lite_mode_refuses_a_revoked_key_at_the_next_call(stack: Stack) -> None:
    key = _create_key(stack, "erin")
    with SluiceClient(stack.target, api_key=key) as client:
        assert list(client.list_knowledge_bases()) == []
        listed = _admin(stack, "list-keys")
        key_id = next(line.split("\t")[0] for line in listed.splitlines() if "erin" in line)
        _admin(stack, "revoke-key", key_id)
        # Lite mode caches no key (its admin tool is another process): refused at once.
        with pytest.raises(Unauthenticated):
            list(client.list_knowledge_bases())
