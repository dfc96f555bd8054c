"""The client's exceptions: one hierarchy under `SluiceError`, modelled on httpx's.

A failed RPC becomes a `SluiceRpcError` subclass chosen by its status code, carrying the
`google.rpc` details of the rich error model already unpacked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from google.protobuf import any_pb2

# googleapis-common-protos ships .pyi files but no py.typed marker (see pyproject's mypy
# overrides).
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from sluice_client._proto.sluice import v1


class SluiceError(Exception):
    """Base class of every error the Sluice client raises."""


class ProtocolError(SluiceError):
    """The server answered with something its contract does not allow."""


class WaitTimeoutError(SluiceError, TimeoutError):
    """A knowledge did not reach a terminal state within the time the caller allowed."""


class SluiceRpcError(SluiceError):
    """An RPC ended with a non-OK status.

    `details` holds the unpacked `google.rpc.Status.details`: `google.rpc` messages
    (`BadRequest`, `ResourceInfo`, `QuotaFailure`, `ErrorInfo`), `v1.Knowledge` for a
    duplicate, and the raw `google.protobuf.Any` of any type the client does not know.
    """

    def __init__(self, code: grpc.StatusCode, message: str, details: list[Any]) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.details = details

    @property
    def field_violations(self) -> list[tuple[str, str]]:
        """(field, description) pairs from every `google.rpc.BadRequest` detail."""
        return [
            (violation.field, violation.description)
            for detail in self.details
            if isinstance(detail, error_details_pb2.BadRequest)
            for violation in detail.field_violations
        ]

    @property
    def existing_knowledge(self) -> v1.Knowledge | None:
        """The knowledge a duplicate collided with (ALREADY_EXISTS), if the server sent it."""
        return next((d for d in self.details if isinstance(d, v1.Knowledge)), None)

    @property
    def existing_knowledge_id(self) -> str | None:
        existing = self.existing_knowledge
        return existing.id if existing is not None else None


class InvalidArgument(SluiceRpcError):
    pass


class NotFound(SluiceRpcError):
    pass


class AlreadyExists(SluiceRpcError):
    pass


class FailedPrecondition(SluiceRpcError):
    pass


class ResourceExhausted(SluiceRpcError):
    pass


class Unauthenticated(SluiceRpcError):
    pass


class PermissionDenied(SluiceRpcError):
    pass


class Unavailable(SluiceRpcError):
    pass


class Unimplemented(SluiceRpcError):
    pass


class DataLoss(SluiceRpcError):
    """What the server received is not what the client declared (an upload's size or MD5)."""


_ERROR_BY_CODE: dict[grpc.StatusCode, type[SluiceRpcError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.UNIMPLEMENTED: Unimplemented,
    grpc.StatusCode.DATA_LOSS: DataLoss,
}

# Detail decoders by fully qualified type name (the part of the type URL after the last '/').
_DETAIL_DECODERS: dict[str, Callable[[bytes], Any]] = {
    "google.rpc.BadRequest": error_details_pb2.BadRequest.FromString,
    "google.rpc.ResourceInfo": error_details_pb2.ResourceInfo.FromString,
    "google.rpc.QuotaFailure": error_details_pb2.QuotaFailure.FromString,
    "google.rpc.ErrorInfo": error_details_pb2.ErrorInfo.FromString,
    "sluice.v1.Knowledge": v1.Knowledge.parse,
}


def _decode_detail(packed: any_pb2.Any) -> Any:
    decode = _DETAIL_DECODERS.get(packed.type_url.rpartition("/")[2])
    return decode(packed.value) if decode is not None else packed


def _rich_details(error: grpc.RpcError) -> list[Any]:
    if not isinstance(error, grpc.Call):
        return []
    try:
        status = rpc_status.from_call(error)
    except ValueError:
        # The status proto contradicts the call's own code or message: trust the call.
        return []
    if status is None:
        return []
    return [_decode_detail(packed) for packed in status.details]


def error_from_rpc(error: grpc.RpcError) -> SluiceRpcError:
    """The `SluiceRpcError` subclass for a grpcio error, with its rich details unpacked."""
    code = error.code()
    error_class = _ERROR_BY_CODE.get(code, SluiceRpcError)
    return error_class(code, error.details() or "", _rich_details(error))


@contextmanager
def translated_rpc_errors() -> Iterator[None]:
    """Re-raises any `grpc.RpcError` inside the block as its `SluiceRpcError`."""
    try:
        yield
    except grpc.RpcError as error:
        raise error_from_rpc(error) from error
