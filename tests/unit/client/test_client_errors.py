"""Failed RPCs become the SluiceRpcError subclass of their code, with rich details unpacked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message

# googleapis-common-protos ships .pyi files but no py.typed marker.
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from sluice.v1 import knowledge_base_pb2, knowledge_base_pb2_grpc, knowledge_pb2, knowledge_pb2_grpc
from sluice_client import (
    AlreadyExists,
    DataLoss,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    SluiceClient,
    SluiceError,
    SluiceRpcError,
    Unauthenticated,
    Unavailable,
    Unimplemented,
    v1,
)

from .conftest import Serve


def rich_status(code: grpc.StatusCode, message: str, *details: Message) -> grpc.Status:
    status = status_pb2.Status(code=code.value[0], message=message)
    for detail in details:
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    result: grpc.Status = rpc_status.to_status(status)
    return result


@dataclass(frozen=True)
class MismatchedStatus(grpc.Status):
    """A status whose google.rpc.Status proto names another code than the call's."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, bytes], ...]


EXISTING = knowledge_pb2.Knowledge(id="k-existing", title="Handbook", file_hash="abc123")


class FailingKnowledge(knowledge_pb2_grpc.KnowledgeServiceServicer):
    """GetKnowledge(id=<StatusCode name>) fails with that code; other RPCs fail richly."""

    def GetKnowledge(
        self, request: knowledge_pb2.GetKnowledgeRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.GetKnowledgeResponse:
        if request.id == "mismatched":
            inner = status_pb2.Status(code=grpc.StatusCode.NOT_FOUND.value[0], message="inner")
            context.abort_with_status(
                MismatchedStatus(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "outer",
                    (("grpc-status-details-bin", inner.SerializeToString()),),
                )
            )
        context.abort(grpc.StatusCode[request.id], f"{request.id} for {request.id}")

    def CreateManual(
        self, request: knowledge_pb2.CreateManualRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.CreateManualResponse:
        context.abort_with_status(
            rich_status(
                grpc.StatusCode.ALREADY_EXISTS,
                "a knowledge with this content exists",
                EXISTING,
                error_details_pb2.ErrorInfo(reason="DUPLICATE_CONTENT", domain="sluice"),
            )
        )

    def UpdateManual(
        self, request: knowledge_pb2.UpdateManualRequest, context: grpc.ServicerContext
    ) -> knowledge_pb2.UpdateManualResponse:
        context.abort_with_status(
            rich_status(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "content too large",
                error_details_pb2.QuotaFailure(
                    violations=[
                        error_details_pb2.QuotaFailure.Violation(
                            subject="content", description="over 10 MiB"
                        )
                    ]
                ),
                error_details_pb2.ResourceInfo(resource_type="knowledge", resource_name="k-9"),
                duration_pb2.Duration(seconds=5),
            )
        )


class FailingKnowledgeBases(knowledge_base_pb2_grpc.KnowledgeBaseServiceServicer):
    def CreateKnowledgeBase(
        self,
        request: knowledge_base_pb2.CreateKnowledgeBaseRequest,
        context: grpc.ServicerContext,
    ) -> knowledge_base_pb2.CreateKnowledgeBaseResponse:
        violations = [
            error_details_pb2.BadRequest.FieldViolation(field="name", description="is required"),
            error_details_pb2.BadRequest.FieldViolation(
                field="config.chunking.chunk_size", description="must be at most 8192"
            ),
        ]
        context.abort_with_status(
            rich_status(
                grpc.StatusCode.INVALID_ARGUMENT,
                "invalid knowledge base",
                error_details_pb2.BadRequest(field_violations=violations),
            )
        )


@pytest.fixture
def client(serve: Serve) -> Iterator[SluiceClient]:
    # The generated .pyi marks every RPC abstract; the run-time bases answer UNIMPLEMENTED.
    target = serve(FailingKnowledge(), FailingKnowledgeBases())  # type: ignore[abstract]
    with SluiceClient(target) as client:
        yield client


@pytest.mark.parametrize(
    ("code", "error_class"),
    [
        (grpc.StatusCode.INVALID_ARGUMENT, InvalidArgument),
        (grpc.StatusCode.NOT_FOUND, NotFound),
        (grpc.StatusCode.ALREADY_EXISTS, AlreadyExists),
        (grpc.StatusCode.FAILED_PRECONDITION, FailedPrecondition),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, ResourceExhausted),
        (grpc.StatusCode.UNAUTHENTICATED, Unauthenticated),
        (grpc.StatusCode.PERMISSION_DENIED, PermissionDenied),
        (grpc.StatusCode.UNAVAILABLE, Unavailable),
        (grpc.StatusCode.UNIMPLEMENTED, Unimplemented),
        (grpc.StatusCode.DATA_LOSS, DataLoss),
        (grpc.StatusCode.ABORTED, SluiceRpcError),
    ],
)
def test_each_status_code_raises_its_error_class(
    client: SluiceClient, code: grpc.StatusCode, error_class: type[SluiceRpcError]
) -> None:
    with pytest.raises(SluiceError) as raised:
        client.get_knowledge(code.name)

    error = raised.value
    assert type(error) is error_class
    assert isinstance(error, SluiceRpcError)
    assert error.code == code
    assert error.message == f"{code.name} for {code.name}"
    assert error.details == []
    assert error.field_violations == []
    assert error.existing_knowledge_id is None
    assert isinstance(error.__cause__, grpc.RpcError)


def test_bad_request_details_become_field_violations(client: SluiceClient) -> None:
    with pytest.raises(InvalidArgument) as raised:
        client.create_knowledge_base("")

    assert raised.value.message == "invalid knowledge base"
    assert raised.value.field_violations == [
        ("name", "is required"),
        ("config.chunking.chunk_size", "must be at most 8192"),
    ]


def test_a_duplicate_carries_the_existing_knowledge(client: SluiceClient) -> None:
    with pytest.raises(AlreadyExists) as raised:
        client.create_manual("kb-1", "Handbook", "# Handbook")

    error = raised.value
    assert error.existing_knowledge_id == "k-existing"
    existing = error.existing_knowledge
    assert isinstance(existing, v1.Knowledge)
    assert (existing.title, existing.file_hash) == ("Handbook", "abc123")
    infos = [d for d in error.details if isinstance(d, error_details_pb2.ErrorInfo)]
    assert [(i.reason, i.domain) for i in infos] == [("DUPLICATE_CONTENT", "sluice")]


def test_quota_and_resource_details_are_unpacked_and_unknown_ones_kept_packed(
    client: SluiceClient,
) -> None:
    with pytest.raises(ResourceExhausted) as raised:
        client.update_manual("k-9", content="x" * 100)

    quota, resource, unknown = raised.value.details
    assert isinstance(quota, error_details_pb2.QuotaFailure)
    assert [(v.subject, v.description) for v in quota.violations] == [("content", "over 10 MiB")]
    assert isinstance(resource, error_details_pb2.ResourceInfo)
    assert resource.resource_name == "k-9"
    assert isinstance(unknown, any_pb2.Any)
    assert unknown.type_url.endswith("google.protobuf.Duration")


def test_a_status_proto_that_contradicts_the_call_is_ignored(client: SluiceClient) -> None:
    with pytest.raises(PermissionDenied) as raised:
        client.get_knowledge("mismatched")

    assert raised.value.message == "outer"
    assert raised.value.details == []
