"""The API key check, before anything else a call does: before its handler is looked up, so
a method the server does not have is UNIMPLEMENTED only for an authenticated caller (an
anonymous one learns nothing, not even which methods exist).

Open without a key: health (load balancers probe it), reflection (the public schema) and
``ResourceService/ReadResource``, whose access grant token is the credential.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

from server.api.auth import Authenticator
from server.api.errors import ApiError, api_error

OPEN_SERVICES = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)
OPEN_METHODS = frozenset({"/sluice.v1.ResourceService/ReadResource"})

if TYPE_CHECKING:  # grpc's handler type is generic only to the type checker
    Handler = grpc.RpcMethodHandler[Any, Any]
    Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]]


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, auth: Authenticator) -> None:
        self._auth = auth

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Handler | None:
        method = handler_call_details.method
        if method in OPEN_METHODS or method.startswith(OPEN_SERVICES):
            return await continuation(handler_call_details)
        try:
            await self._auth.authenticate(handler_call_details.invocation_metadata or ())
        except Exception as exc:  # a refused key, or the database it is looked up in is down
            return _refusal(api_error(exc), await continuation(handler_call_details))
        return await continuation(handler_call_details)


def _refusal(error: ApiError, handler: Handler | None) -> Handler:
    """A handler of the call's own kind that answers ``error`` and ignores the request (no
    deserializer: it stays bytes); for an unknown method, a bidirectional one, which fits
    any client."""
    status = error.to_status()

    async def refuse(context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await context.abort(status.code, status.details, status.trailing_metadata)

    async def unary(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        await refuse(context)

    async def streamed(_request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await refuse(context)
        yield  # never reached (abort raises); makes this a generator, as streams need

    if handler is None or (handler.request_streaming and handler.response_streaming):
        return grpc.stream_stream_rpc_method_handler(streamed)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(unary)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(streamed)
    return grpc.unary_unary_rpc_method_handler(unary)
