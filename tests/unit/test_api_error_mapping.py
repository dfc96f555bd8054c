"""Each kind of domain error (core.errors) as the status a client gets (server.api.errors):
its code, message and google.rpc details; outages as UNAVAILABLE naming the component."""

from __future__ import annotations

import grpc
import pytest
import sqlalchemy.exc
from google.protobuf.message import Message
from google.rpc import error_details_pb2 as rpc
from pymilvus import MilvusException, MilvusUnavailableException
from redis.exceptions import ConnectionError as RedisConnectionError
from sluice.v1 import config_pb2, knowledge_pb2

from core.errors import (
    Aborted,
    AlreadyExists,
    DataLoss,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    SluiceError,
    Unavailable,
    Unimplemented,
)
from server.api.errors import api_error
from server.services.tags import TaggedKnowledge
from server.services.url_import import url_refused
from storage.db.models import Knowledge
from storage.events.base import EventBusError
from storage.index.connection import is_unavailable
from storage.index.errors import IndexStoreError, IndexUnavailableError
from storage.queue.base import NotInTaskError, QueueError
from workers.embedding.base import EmbeddingProviderError

Code = grpc.StatusCode
# The duplicate the service found; a client gets it as the message a read would show.
EXISTING = TaggedKnowledge(Knowledge(id="k1", file_name="a.md"), ["t1"])


def _violation(field: str, description: str) -> rpc.BadRequest.FieldViolation:
    return rpc.BadRequest.FieldViolation(field=field, description=description)


@pytest.mark.parametrize(
    ("error", "code", "message", "details"),
    [
        (
            InvalidArgument([("a", "is required"), ("b", "too long")]),
            Code.INVALID_ARGUMENT,
            "a: is required; b: too long",
            [
                rpc.BadRequest(
                    field_violations=[_violation("a", "is required"), _violation("b", "too long")]
                )
            ],
        ),
        (
            url_refused("url", "10.1.2.3 is a private address"),
            Code.INVALID_ARGUMENT,
            "url: refused by the SSRF policy: 10.1.2.3 is a private address",
            [
                rpc.BadRequest(
                    field_violations=[
                        _violation(
                            "url", "refused by the SSRF policy: 10.1.2.3 is a private address"
                        )
                    ]
                ),
                rpc.ErrorInfo(
                    reason="URL_REFUSED",
                    domain="sluice",
                    metadata={"field": "url", "rule": "10.1.2.3 is a private address"},
                ),
            ],
        ),
        (
            NotFound("sluice.v1.Knowledge", "k9"),
            Code.NOT_FOUND,
            "sluice.v1.Knowledge 'k9' not found",
            [rpc.ResourceInfo(resource_type="sluice.v1.Knowledge", resource_name="k9")],
        ),
        (
            AlreadyExists("sluice.v1.Knowledge", "k1", "file 'a.md' already exists", EXISTING),
            Code.ALREADY_EXISTS,
            "file 'a.md' already exists",
            [
                rpc.ResourceInfo(
                    resource_type="sluice.v1.Knowledge",
                    resource_name="k1",
                    description="file 'a.md' already exists",
                ),
                knowledge_pb2.Knowledge(
                    id="k1",
                    file_name="a.md",
                    tag_ids=["t1"],
                    process_overrides=config_pb2.ProcessConfig(),
                ),
            ],
        ),
        (
            FailedPrecondition("MODEL_MISSING", "config.vlm", "no VLM is configured"),
            Code.FAILED_PRECONDITION,
            "no VLM is configured",
            [
                rpc.PreconditionFailure(
                    violations=[
                        rpc.PreconditionFailure.Violation(
                            type="MODEL_MISSING",
                            subject="config.vlm",
                            description="no VLM is configured",
                        )
                    ]
                )
            ],
        ),
        (
            Aborted("CONCURRENT_CHANGE", "k1", "the knowledge kept changing; retry"),
            Code.ABORTED,
            "the knowledge kept changing; retry",
            [rpc.ErrorInfo(reason="CONCURRENT_CHANGE", domain="sluice", metadata={"id": "k1"})],
        ),
        (
            ResourceExhausted("file_size", "file is larger than the limit of 10 bytes"),
            Code.RESOURCE_EXHAUSTED,
            "file is larger than the limit of 10 bytes",
            [
                rpc.QuotaFailure(
                    violations=[
                        rpc.QuotaFailure.Violation(
                            subject="file_size",
                            description="file is larger than the limit of 10 bytes",
                        )
                    ]
                )
            ],
        ),
        (
            DataLoss("UPLOAD_MD5_MISMATCH", "hashes differ", {"declared": "a", "received": "b"}),
            Code.DATA_LOSS,
            "hashes differ",
            [
                rpc.ErrorInfo(
                    reason="UPLOAD_MD5_MISMATCH",
                    domain="sluice",
                    metadata={"declared": "a", "received": "b"},
                )
            ],
        ),
        (
            PermissionDenied("GRANT_EXPIRED", "token", "the access grant has expired"),
            Code.PERMISSION_DENIED,
            "the access grant has expired",
            [rpc.ErrorInfo(reason="GRANT_EXPIRED", domain="sluice", metadata={"id": "token"})],
        ),
        (
            Unimplemented("MoveKnowledge", "lands with the clone/move issue"),
            Code.UNIMPLEMENTED,
            "MoveKnowledge is not implemented yet (lands with the clone/move issue)",
            [],
        ),
    ],
)
def test_each_kind_has_its_code_message_and_details(
    error: SluiceError, code: grpc.StatusCode, message: str, details: list[Message]
) -> None:
    status = api_error(error)
    assert (status.code, status.message, status.details) == (code, message, details)
    assert status.to_status().code == code


def _unavailable(component: str) -> tuple[str, list[Message]]:
    info = rpc.ErrorInfo(
        reason="COMPONENT_UNAVAILABLE", domain="sluice", metadata={"component": component}
    )
    return f"{component} is unavailable; try again later", [info]


@pytest.mark.parametrize(
    ("error", "component"),
    [
        (Unavailable("docreader", "connect to 10.0.0.5:50052 refused"), "docreader"),
        (IndexUnavailableError("cannot search: connection refused (code 2)"), "index"),
        (QueueError("enqueue of document:process [k1] failed: Error 111"), "task queue"),
        (EventBusError("subscription lost"), "event bus"),
        (EmbeddingProviderError("POST http://10.0.0.7/embeddings: 503"), "embedding model"),
        (EmbeddingProviderError("answered HTTP 503", status=503), "embedding model"),
        (EmbeddingProviderError("answered HTTP 429", status=429), "embedding model"),
        (sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("no login")), "database"),
        (sqlalchemy.exc.InterfaceError("SELECT 1", {}, Exception("closed")), "database"),
        (RedisConnectionError("Error 111 connecting to 10.0.0.9:6379"), "Redis"),
    ],
)
def test_an_outage_is_unavailable_naming_the_component_and_keeping_internals_in_the_log(
    error: Exception, component: str
) -> None:
    status = api_error(error)
    assert status.code == Code.UNAVAILABLE
    assert (status.message, status.details) == _unavailable(component)


@pytest.mark.parametrize(
    "error",
    [
        KeyError("surprise"),
        Internal("a chunk without a knowledge"),
        NotInTaskError("not inside a running task handler"),
        SluiceError("of no kind"),
        IndexStoreError("cannot search: vector dimension 4 does not match 8 (code 1100)"),
        sqlalchemy.exc.IntegrityError("INSERT", {}, Exception("duplicate key")),
    ],
)
def test_anything_else_is_internal_naming_only_its_type(error: Exception) -> None:
    status = api_error(error)
    assert status.code == Code.INTERNAL
    assert status.message == f"internal error ({type(error).__name__})"
    assert status.details == []


def test_an_embedding_endpoint_refusing_the_request_is_a_failed_precondition() -> None:
    """A 4xx the provider client does not retry (bad key, unknown model) will be answered
    the same way again: the configuration must change, so not UNAVAILABLE."""
    error = EmbeddingProviderError(
        "http://10.0.0.7/v1/embeddings answered HTTP 401 for model m",
        status=401,
        endpoint="http://10.0.0.7/v1/embeddings",
        model="m",
    )
    status = api_error(error)
    message = (
        "the embedding endpoint http://10.0.0.7/v1/embeddings rejected model 'm' with "
        "HTTP 401: check the model name and api_key"
    )
    violation = rpc.PreconditionFailure.Violation(
        type="MODEL_REQUEST_REJECTED", subject="config.embedding", description=message
    )
    assert (status.code, status.message, status.details) == (
        Code.FAILED_PRECONDITION,
        message,
        [rpc.PreconditionFailure(violations=[violation])],
    )


@pytest.mark.parametrize(
    ("milvus_error", "unavailable"),
    [
        (MilvusException(code=2, message="Fail connecting to server"), True),
        (MilvusException(grpc.StatusCode.UNAVAILABLE, "Retry timeout: 10s"), True),
        (MilvusException(grpc.StatusCode.DEADLINE_EXCEEDED, "Retry timeout: 10s"), True),
        (MilvusUnavailableException(message="server unavailable"), True),
        (MilvusException(code=1100, message="vector dimension mismatch"), False),
    ],
)
def test_only_an_index_connection_or_timeout_failure_is_the_index_unavailable(
    milvus_error: MilvusException, unavailable: bool
) -> None:
    assert is_unavailable(milvus_error) is unavailable
