"""API errors as gRPC statuses with google.rpc rich details.

Services raise ApiError; the ``unary``/``streaming`` decorators turn it into an abort with
``grpc-status-details-bin`` trailing metadata, so every client language can read the
field violations, the duplicate's id or the quota that was exceeded.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from storage.files.backend_scoped import UnknownBackendError
from storage.files.base import FileNotFoundInStorage, StorageError, UnsafePathError

log = logging.getLogger(__name__)

S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")

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


class ApiError(Exception):
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


def invalid_argument(field: str, description: str) -> ApiError:
    return invalid_arguments([(field, description)])


def invalid_arguments(violations: Sequence[tuple[str, str]]) -> ApiError:
    """INVALID_ARGUMENT with one field violation per (field, description), all at once, so
    a client fixes every field in one go."""
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT,
        "; ".join(f"{field}: {description}" for field, description in violations),
        [
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                    for f, d in violations
                ]
            )
        ],
    )


def url_refused(field: str, reason: str, *, kind: str = "URL_REFUSED") -> ApiError:
    """A URL the SSRF policy refuses: INVALID_ARGUMENT whose field violation names the rule,
    plus ErrorInfo ``kind`` (URL_REFUSED, MODEL_ENDPOINT_REFUSED; the rule in its metadata),
    so a client can tell the policy's verdict from a missing field."""
    description = f"refused by the SSRF policy: {reason}"
    violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
    info = error_details_pb2.ErrorInfo(
        reason=kind, domain="sluice", metadata={"field": field, "rule": reason}
    )
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"{field}: {description}",
        [error_details_pb2.BadRequest(field_violations=[violation]), info],
    )


def not_found(resource_type: str, name: str) -> ApiError:
    return ApiError(
        grpc.StatusCode.NOT_FOUND,
        f"{resource_type} {name!r} not found",
        [error_details_pb2.ResourceInfo(resource_type=resource_type, resource_name=name)],
    )


def permission_denied(reason: str, subject: str, description: str) -> ApiError:
    """A credential that opens nothing (an access grant's token, not the API key, which is
    UNAUTHENTICATED): ErrorInfo ``reason`` says why, so a client can tell "ask for a new
    one" from a mistyped token."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain="sluice", metadata={"id": subject})
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, description, [info])


def already_exists(
    resource_type: str, name: str, message: str, existing: Message | None = None
) -> ApiError:
    """A duplicate: the details name it and, when given, carry the existing resource itself."""
    info = error_details_pb2.ResourceInfo(
        resource_type=resource_type, resource_name=name, description=message
    )
    details: list[Message] = [info] if existing is None else [info, existing]
    return ApiError(grpc.StatusCode.ALREADY_EXISTS, message, details)


def resource_exhausted(subject: str, description: str) -> ApiError:
    violation = error_details_pb2.QuotaFailure.Violation(subject=subject, description=description)
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        description,
        [error_details_pb2.QuotaFailure(violations=[violation])],
    )


def data_loss(reason: str, description: str, metadata: dict[str, str]) -> ApiError:
    """What arrived is not what the client said it sent (its size or MD5): ErrorInfo
    ``reason`` names the check, its metadata the expected and received values."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain="sluice", metadata=metadata)
    return ApiError(grpc.StatusCode.DATA_LOSS, description, [info])


def failed_precondition(kind: str, subject: str, description: str) -> ApiError:
    violation = error_details_pb2.PreconditionFailure.Violation(
        type=kind, subject=subject, description=description
    )
    return ApiError(
        grpc.StatusCode.FAILED_PRECONDITION,
        description,
        [error_details_pb2.PreconditionFailure(violations=[violation])],
    )


def aborted(kind: str, subject: str, description: str) -> ApiError:
    """A concurrent change won a compare-and-set: the caller may re-read and retry."""
    info = error_details_pb2.ErrorInfo(reason=kind, domain="sluice", metadata={"id": subject})
    return ApiError(grpc.StatusCode.ABORTED, description, [info])


def unimplemented(rpc: str, issue: str) -> ApiError:
    return ApiError(grpc.StatusCode.UNIMPLEMENTED, f"{rpc} is not implemented yet ({issue})")


def _internal(exc: Exception) -> ApiError:
    """An unexpected failure: logged with its traceback, answered without internals."""
    log.exception("unexpected error in an RPC handler")
    return ApiError(grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__})")


def _storage_failure(exc: StorageError) -> ApiError:
    """What a storage error the handler did not expect tells the client; the details (paths,
    provider messages) go to the log, not to the client.

    - A file on a backend this deployment no longer configures: FAILED_PRECONDITION, as
      retrying cannot help until an operator configures it again.
    - A stored file that is gone: NOT_FOUND.
    - An unsafe path: INTERNAL. No client input reaches storage as a path (clients name
      files by knowledge id or ``resource://`` reference, both resolved to paths the server
      built and stored, and uploaded names are sanitised first), so it is a bug or a
      corrupted record, not a bad argument.
    - Anything else (an S3 endpoint down, say) is transient: UNAVAILABLE, retry later.
    """
    if isinstance(exc, UnsafePathError):
        return _internal(exc)
    log.warning("file storage failed in an RPC handler: %s", exc)
    if isinstance(exc, UnknownBackendError):
        return failed_precondition(
            "STORAGE_BACKEND_NOT_CONFIGURED",
            exc.backend_id,
            f"the file is on storage backend {exc.backend_id!r}, which this deployment "
            "does not configure",
        )
    if isinstance(exc, FileNotFoundInStorage):
        info = error_details_pb2.ResourceInfo(
            resource_type="sluice.v1.StoredFile", description="gone from file storage"
        )
        return ApiError(grpc.StatusCode.NOT_FOUND, "the stored file is gone", [info])
    return ApiError(grpc.StatusCode.UNAVAILABLE, "file storage is unavailable; try again later")


async def _abort(context: grpc.aio.ServicerContext[Any, Any], exc: ApiError) -> None:
    status = exc.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)


def unary(
    fn: Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]:
    """Unary (and client-streaming) handlers: ApiError → rich status."""

    @functools.wraps(fn)
    async def wrapper(self: S, request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
        try:
            return await fn(self, request, context)
        except ApiError as exc:
            await _abort(context, exc)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except StorageError as exc:
            await _abort(context, _storage_failure(exc))
        except Exception as exc:
            await _abort(context, _internal(exc))
        raise AssertionError("unreachable: abort raises")

    return wrapper


def streaming(
    fn: Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], AsyncIterator[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], AsyncIterator[Resp]]:
    """Server-streaming handlers: ApiError → rich status."""

    @functools.wraps(fn)
    async def wrapper(
        self: S, request: Req, context: grpc.aio.ServicerContext[Req, Resp]
    ) -> AsyncIterator[Resp]:
        try:
            async for item in fn(self, request, context):
                yield item
        except ApiError as exc:
            await _abort(context, exc)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except StorageError as exc:
            await _abort(context, _storage_failure(exc))
        except Exception as exc:
            await _abort(context, _internal(exc))

    return wrapper
