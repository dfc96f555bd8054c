"""Handler decorators, the gRPC edge of every service: whatever a handler raises leaves it
as the status server.api.errors gives it, with ``grpc-status-details-bin`` trailing
metadata."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import grpc

from server.api.errors import ApiError, api_error

S = TypeVar("S")
Req = TypeVar("Req")
Resp = TypeVar("Resp")


@contextmanager
def translated() -> Iterator[None]:
    """Inside it, any failure leaves as the ApiError a client would get (a cancelled or
    already aborted call passes untouched)."""
    try:
        yield
    except (ApiError, grpc.aio.AbortError):
        raise
    except Exception as exc:
        raise api_error(exc) from exc


async def _abort(context: grpc.aio.ServicerContext[Any, Any], exc: ApiError) -> None:
    status = exc.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)


def unary(
    fn: Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]:
    """Unary (and client-streaming) handlers: any failure → its rich status."""

    @functools.wraps(fn)
    async def wrapper(self: S, request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
        try:
            with translated():
                return await fn(self, request, context)
        except ApiError as exc:
            await _abort(context, exc)
        raise AssertionError("unreachable: abort raises")

    return wrapper


def streaming(
    fn: Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], AsyncIterator[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Req, Resp]], AsyncIterator[Resp]]:
    """Server-streaming handlers: any failure → its rich status."""

    @functools.wraps(fn)
    async def wrapper(
        self: S, request: Req, context: grpc.aio.ServicerContext[Req, Resp]
    ) -> AsyncIterator[Resp]:
        try:
            with translated():
                async for item in fn(self, request, context):
                    yield item
        except ApiError as exc:
            await _abort(context, exc)

    return wrapper
