"""The access log: one record per gRPC call a server answers (logger ``sluice.access``,
event ``rpc``) with its method, status code, duration in milliseconds, the peer, and the
size of the request messages (summed over a client stream as it is read).

Two interceptors, one per server kind: the API's grpc.aio server and the docreader's
thread-pool server. Both wrap the method's handler, so the record is written when the call
ends, inside its span when tracing is on (the record then carries the trace id).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

import grpc

access_log = logging.getLogger("sluice.access")

if TYPE_CHECKING:  # grpc's handler type is generic only to the type checker
    Handler = grpc.RpcMethodHandler[Any, Any]
    AsyncContinuation = Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]]
    Continuation = Callable[[grpc.HandlerCallDetails], Handler | None]


class _Call:
    """One call being timed: what its record will say.

    The peer is read as the call starts, never when it ends: a grpc.aio stream whose client
    went away while a response was being sent leaves its handler's generator suspended, and
    its ``finally`` runs when the generator is collected, after grpc released the call;
    ``context.peer()`` then dereferences a null call and the whole process dies (SIGSEGV).
    """

    def __init__(self, method: str, context: Any) -> None:
        self.method = method
        self.peer = context.peer()
        self.started = time.perf_counter()
        self.request_bytes = 0

    def count(self, message: object) -> object:
        size = getattr(message, "ByteSize", None)
        if callable(size):
            self.request_bytes += size()
        elif isinstance(message, bytes):
            self.request_bytes += len(message)
        return message

    def finish(self, context: Any, error: BaseException | None) -> None:
        code = _status_name(context.code(), error)
        level = logging.ERROR if code in _SERVER_FAULTS else _quiet_level(self.method)
        access_log.log(
            level,
            "rpc",
            extra={
                "method": self.method,
                "code": code,
                "duration_ms": round((time.perf_counter() - self.started) * 1000, 3),
                "peer": self.peer,
                "request_bytes": self.request_bytes,
            },
        )


# Codes that say the server failed, not the caller: logged at ERROR.
_SERVER_FAULTS = frozenset({"UNKNOWN", "INTERNAL", "DATA_LOSS", "UNIMPLEMENTED"})

# Services that probes and tools call over and over (load balancers, Kubernetes, grpcurl):
# their successful calls are logged at DEBUG so they do not flood the log at INFO.
_PROBE_SERVICES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


def _quiet_level(method: str) -> int:
    return logging.DEBUG if method.startswith(_PROBE_SERVICES) else logging.INFO


def _status_name(code: grpc.StatusCode | None, error: BaseException | None) -> str:
    """The code the call ended with: the one set (by abort or set_code), else what grpc
    answers for how the handler ended."""
    if code is not None:
        return code.name
    if error is None:
        return "OK"
    # grpc answers an escaped exception with UNKNOWN; a grpc.aio handler whose caller went
    # away is cancelled, or, when it went away while a response was being sent, its stream's
    # generator is closed (GeneratorExit) once collected.
    left = isinstance(error, asyncio.CancelledError | GeneratorExit)
    return "CANCELLED" if left else "UNKNOWN"


def _rebuilt(handler: Handler, behaviour: Callable[..., Any]) -> Handler:
    """``handler`` with its behaviour replaced, of the same kind and (de)serializers."""
    kinds = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }
    build: Callable[..., Handler] = kinds[handler.request_streaming, handler.response_streaming]
    return build(
        behaviour,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


def _behaviour(handler: Handler) -> Callable[..., Any]:
    found = (
        handler.unary_unary or handler.unary_stream or handler.stream_unary or handler.stream_stream
    )
    assert found is not None  # a handler has exactly one behaviour
    return found


class AsyncAccessLogInterceptor(grpc.aio.ServerInterceptor):
    """The access log of a grpc.aio server."""

    async def intercept_service(
        self, continuation: AsyncContinuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        behaviour = _behaviour(handler)

        def request_of(call: _Call, request: Any) -> Any:
            if not handler.request_streaming:
                call.count(request)
                return request

            async def counted() -> AsyncIterator[Any]:
                async for message in request:
                    yield call.count(message)

            return counted()

        if inspect.isasyncgenfunction(behaviour):

            async def streamed(request: Any, context: Any) -> AsyncIterator[Any]:
                call, error = _Call(method, context), None
                try:
                    async for response in behaviour(request_of(call, request), context):
                        yield response
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    call.finish(context, error)

            return _rebuilt(handler, streamed)

        async def answered(request: Any, context: Any) -> Any:
            call, error = _Call(method, context), None
            try:
                return await behaviour(request_of(call, request), context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                call.finish(context, error)

        return _rebuilt(handler, answered)


class AccessLogInterceptor(grpc.ServerInterceptor):
    """The access log of a thread-pool grpc server."""

    def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        behaviour = _behaviour(handler)

        def request_of(call: _Call, request: Any) -> Any:
            if not handler.request_streaming:
                call.count(request)
                return request
            return (call.count(message) for message in request)

        if handler.response_streaming:

            def streamed(request: Any, context: Any) -> Iterator[Any]:
                call, error = _Call(method, context), None
                try:
                    yield from behaviour(request_of(call, request), context)
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    call.finish(context, error)

            return _rebuilt(handler, streamed)

        def answered(request: Any, context: Any) -> Any:
            call, error = _Call(method, context), None
            try:
                return behaviour(request_of(call, request), context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                call.finish(context, error)

        return _rebuilt(handler, answered)
