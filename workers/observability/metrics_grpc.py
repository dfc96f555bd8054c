"""Server interceptors counting and timing every gRPC call, streams included: the API's
``grpc.aio`` one and the docreader's thread-pool one. They only read and observe: a call
behaves exactly as without them.

A call's status is the code its context ends with (``abort``, ``set_code``), CANCELLED for a
call the client left, UNKNOWN for an exception nothing turned into a status, else OK. Calls
to services the server does not have are counted under service and method "unknown", so a
client cannot make up label values.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterator
from typing import TYPE_CHECKING, Any

import grpc
from prometheus_client import Counter

from workers.observability.metrics import metrics

if TYPE_CHECKING:  # grpc's handler type is generic only to the type checker
    Handler = grpc.RpcMethodHandler[Any, Any]
    AsyncContinuation = Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]]
    Continuation = Callable[[grpc.HandlerCallDetails], Handler | None]

UNKNOWN = "unknown"


class _CallLabels:
    """The labels of one method, and how a call of it is recorded. Made once per method: the
    metrics' children are looked up once each (``labels()`` takes a lock and validates its
    arguments every time, the biggest part of what recording a call cost)."""

    def __init__(self, server: str, method: str, services: Collection[str]) -> None:
        service, _, name = method.lstrip("/").rpartition("/")
        if service not in services:
            service, name = UNKNOWN, UNKNOWN
        self.labels = (server, service, name)
        found = metrics()
        self._requests = found.rpc_requests
        self._duration = found.rpc_duration.labels(*self.labels)
        self._requests_by_code: dict[str, Counter] = {}

    def record(self, started: float, code: str) -> None:
        self._duration.observe(time.perf_counter() - started)
        requests = self._requests_by_code.get(code)
        if requests is None:  # the codes are grpc's few, so this stays small
            requests = self._requests.labels(*self.labels, code)
            self._requests_by_code[code] = requests
        requests.inc()


class _MethodLabels:
    """Each method's _CallLabels, made on its first call. Only methods the server has a
    handler for get here, so a client cannot grow it with made-up names."""

    def __init__(self, server: str, services: Collection[str]) -> None:
        self._server = server
        self._services = frozenset(services)
        self._by_method: dict[str, _CallLabels] = {}

    def __call__(self, method: str) -> _CallLabels:
        call = self._by_method.get(method)
        if call is None:
            call = _CallLabels(self._server, method, self._services)
            self._by_method[method] = call
        return call


def status_name(code: object, error: BaseException | None) -> str:
    """The status a call ended with (see the module docstring)."""
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):  # grpc.aio hands back the code's number
        return next((c.name for c in grpc.StatusCode if c.value[0] == code), UNKNOWN.upper())
    # A caller that went away: its handler is cancelled or, when it left while a response
    # was being sent, its stream's generator is closed once collected.
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return grpc.StatusCode.CANCELLED.name
    return grpc.StatusCode.UNKNOWN.name if error is not None else grpc.StatusCode.OK.name


class AsyncRpcMetricsInterceptor(grpc.aio.ServerInterceptor):
    """For a ``grpc.aio`` server; ``services``: the full names of the services it serves."""

    def __init__(self, server: str, services: Collection[str]) -> None:
        self._labels = _MethodLabels(server, services)

    async def intercept_service(
        self, continuation: AsyncContinuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        call = self._labels(handler_call_details.method)
        return _async_handler(handler, call)


def _async_handler(handler: Handler, call: _CallLabels) -> Handler:
    def unary(behavior: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def observed(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            started, error = time.perf_counter(), None
            try:
                return await behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                call.record(started, status_name(context.code(), error))

        return observed

    def streamed(behavior: Callable[..., Any]) -> Callable[..., Any]:
        async def observed(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            started, error = time.perf_counter(), None
            try:
                # grpc.aio takes an async generator, a coroutine writing with
                # context.write, or a plain iterator: this passes each through.
                responses = behavior(request, context)
                if inspect.isasyncgen(responses):
                    async for response in responses:
                        yield response
                elif inspect.isawaitable(responses):
                    await responses
                else:
                    for response in responses:
                        yield response
            except BaseException as exc:
                error = exc
                raise
            finally:
                call.record(started, status_name(context.code(), error))

        return observed

    return _rebuilt(handler, unary, streamed)


class RpcMetricsInterceptor(grpc.ServerInterceptor):
    """For a thread-pool ``grpc.server`` (the docreader)."""

    def __init__(self, server: str, services: Collection[str]) -> None:
        self._labels = _MethodLabels(server, services)

    def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        call = self._labels(handler_call_details.method)
        return _sync_handler(handler, call)


def _sync_handler(handler: Handler, call: _CallLabels) -> Handler:
    def unary(behavior: Callable[..., Any]) -> Callable[..., Any]:
        def observed(request: Any, context: grpc.ServicerContext) -> Any:
            started, error = time.perf_counter(), None
            try:
                return behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                # grpc has had code() since 1.38; its type stubs lack it.
                code = context.code()  # type: ignore[attr-defined]
                call.record(started, status_name(code, error))

        return observed

    def streamed(behavior: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        def observed(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            started, error = time.perf_counter(), None
            try:
                yield from behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                # grpc has had code() since 1.38; its type stubs lack it.
                code = context.code()  # type: ignore[attr-defined]
                call.record(started, status_name(code, error))

        return observed

    return _rebuilt(handler, unary, streamed)


def _rebuilt(
    handler: Handler,
    unary: Callable[[Callable[..., Any]], Callable[..., Any]],
    streamed: Callable[[Callable[..., Any]], Callable[..., Any]],
) -> Handler:
    """``handler`` with its behaviour wrapped: ``unary`` for a single response, ``streamed``
    for a response stream."""
    decode, encode = handler.request_deserializer, handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), decode, encode)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), decode, encode)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streamed(handler.unary_stream), decode, encode)
    assert handler.stream_stream is not None  # a handler has exactly one behaviour
    return grpc.stream_stream_rpc_method_handler(streamed(handler.stream_stream), decode, encode)
