"""API errors as gRPC statuses: the status of each kind of domain error (core.errors) with
google.rpc rich details, so every client language can read the field violations, the
duplicate's id or the quota that was exceeded. The one place that knows both the error
tree and gRPC codes; the handler decorators (server.api.rpc) apply it."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from core.errors import (
    Aborted,
    AlreadyExists,
    DataLoss,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    SluiceError,
    Unimplemented,
    outage_of,
)
from server.api import convert
from server.api.outages import foreign_outage
from server.services.tags import TaggedKnowledge
from workers.embedding.base import EmbeddingProviderError

log = logging.getLogger(__name__)

DOMAIN = "sluice"
# PreconditionFailure type of a model endpoint that refused the request itself.
MODEL_REJECTED_REASON = "MODEL_REQUEST_REJECTED"
Code = grpc.StatusCode

_CODES: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND: code_pb2.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS: code_pb2.ALREADY_EXISTS,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED: code_pb2.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    grpc.StatusCode.UNIMPLEMENTED: code_pb2.UNIMPLEMENTED,
    grpc.StatusCode.UNAVAILABLE: code_pb2.UNAVAILABLE,
    grpc.StatusCode.INTERNAL: code_pb2.INTERNAL,
    grpc.StatusCode.DATA_LOSS: code_pb2.DATA_LOSS,
}


class ApiError(SluiceError):
    """A failure already translated for the wire (by api_error), or one the
    edge itself refuses with (a missing API key)."""

    def __init__(self, code: grpc.StatusCode, message: str, details: Sequence[Message] = ()):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = list(details)

    def to_status(self) -> grpc.Status:
        status = status_pb2.Status(code=_CODES[self.code], message=self.message)
        for detail in self.details:
            packed = any_pb2.Any()
            packed.Pack(detail)
            status.details.append(packed)
        converted: grpc.Status = rpc_status.to_status(status)
        return converted


def api_error(exc: Exception) -> ApiError:
    """What a client is told about ``exc``; an outage names its component (details to the
    log), anything unexpected is INTERNAL with its traceback logged."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, SluiceError):
        exc = _final_answer(exc)
        component = outage_of(exc)
        if component is not None:
            return _unavailable(component, exc)
        known = _kind_status(exc)
        if known is not None:
            return known
    else:
        component = foreign_outage(exc)
        if component is not None:
            return _unavailable(component, exc)
    log.exception("unexpected error in an RPC handler", exc_info=exc)
    return ApiError(Code.INTERNAL, f"internal error ({type(exc).__name__})")


def _final_answer(exc: SluiceError) -> SluiceError:
    """A model provider's refusal that a retry would meet again (bad credentials, an
    unknown model: the provider client's own classification) is the configuration's to fix,
    not an outage."""
    if isinstance(exc, EmbeddingProviderError) and exc.final:
        return FailedPrecondition(
            MODEL_REJECTED_REASON,
            "config.embedding",
            f"the embedding endpoint {exc.endpoint} rejected model {exc.model!r} with "
            f"HTTP {exc.status}: check the model name and api_key",
        )
    return exc


def _unavailable(component: str, exc: Exception) -> ApiError:
    log.warning("%s unavailable in an RPC handler: %s", component, exc)
    info = error_details_pb2.ErrorInfo(
        reason="COMPONENT_UNAVAILABLE", domain=DOMAIN, metadata={"component": component}
    )
    return ApiError(Code.UNAVAILABLE, f"{component} is unavailable; try again later", [info])


def _kind_status(exc: SluiceError) -> ApiError | None:
    if isinstance(exc, InvalidArgument):
        return _invalid_argument(exc)
    if isinstance(exc, NotFound):
        resource = error_details_pb2.ResourceInfo(
            resource_type=exc.resource_type,
            resource_name=exc.resource_name,
            description=exc.description,
        )
        return ApiError(Code.NOT_FOUND, exc.message, [resource])
    if isinstance(exc, AlreadyExists):
        duplicate = error_details_pb2.ResourceInfo(
            resource_type=exc.resource_type,
            resource_name=exc.resource_name,
            description=exc.message,
        )
        # The existing knowledge goes along when the service named it.
        existing = exc.existing
        shown = [convert.knowledge(existing)] if isinstance(existing, TaggedKnowledge) else []
        return ApiError(Code.ALREADY_EXISTS, exc.message, [duplicate, *shown])
    if isinstance(exc, FailedPrecondition):
        violation = error_details_pb2.PreconditionFailure.Violation(
            type=exc.kind, subject=exc.subject, description=exc.message
        )
        failure = error_details_pb2.PreconditionFailure(violations=[violation])
        return ApiError(Code.FAILED_PRECONDITION, exc.message, [failure])
    if isinstance(exc, Aborted | PermissionDenied):
        code = Code.ABORTED if isinstance(exc, Aborted) else Code.PERMISSION_DENIED
        return ApiError(code, exc.message, [_info(exc.reason, {"id": exc.subject})])
    if isinstance(exc, ResourceExhausted):
        quota = error_details_pb2.QuotaFailure.Violation(
            subject=exc.subject, description=exc.message
        )
        failure = error_details_pb2.QuotaFailure(violations=[quota])
        return ApiError(Code.RESOURCE_EXHAUSTED, exc.message, [failure])
    if isinstance(exc, DataLoss):
        return ApiError(Code.DATA_LOSS, exc.message, [_info(exc.reason, exc.metadata)])
    if isinstance(exc, Unimplemented):
        return ApiError(Code.UNIMPLEMENTED, exc.message)
    return None  # Internal, or an error of no kind: unexpected


def _invalid_argument(exc: InvalidArgument) -> ApiError:
    bad_request = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
            for field, description in exc.violations
        ]
    )
    # A policy's refusal also says which policy, so a client can tell it from a missing field.
    policy = [_info(exc.reason, exc.metadata)] if exc.reason else []
    return ApiError(Code.INVALID_ARGUMENT, exc.message, [bad_request, *policy])


def _info(reason: str, metadata: dict[str, str]) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
