"""What went wrong on an outbound connection, in our own words only.

The text of an exception http.client (the fetcher) or httpx (model providers) raises while
reading an answer carries the bytes the server sent ("BadStatusLine: '\\x00\\x00\\x12..."
from a gRPC port, a Redis error line), and a server's reason phrase is whatever it chose to
put there. Error messages go back to whoever asked for the URL, so they name the kind of
failure and the standard phrase of the status, never anything the server sent.
"""

from __future__ import annotations

import http
import http.client
import ssl

import httpx


def connection_failure(exc: BaseException) -> str:
    """``exc`` (raised connecting, sending or reading) described without the server's bytes."""
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the server closed the connection without answering"
    if isinstance(exc, http.client.BadStatusLine):
        return "the server did not answer in HTTP (bad status line)"
    if isinstance(exc, http.client.LineTooLong):
        return "the answer has a line over the length limit"
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the whole body arrived"
    if isinstance(exc, http.client.HTTPException):
        return f"the answer is not valid HTTP ({type(exc).__name__})"
    if isinstance(exc, ssl.SSLError):
        # OpenSSL's own reason code (CERTIFICATE_VERIFY_FAILED...), not the peer's bytes.
        return f"TLS failed ({exc.reason})" if exc.reason else "TLS failed"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{type(exc).__name__}: {exc.strerror}"
    return type(exc).__name__


def transport_failure(exc: httpx.TransportError) -> str:
    """Why httpx got no answer, without the server's bytes."""
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.RemoteProtocolError):
        # httpcore's and h11's own fixed words come first; any bytes of the server follow.
        text = str(exc)
        if text.startswith("Server disconnected without sending a response"):
            # Said too when the bytes before the close were no HTTP status line.
            return "the server closed the connection and did not answer in HTTP"
        if text.startswith("peer closed connection without sending complete message body"):
            return "the connection closed before the whole body arrived"
        return "the server did not answer in HTTP (a protocol error)"
    # The socket's or TLS's error is down the chain (httpcore's pool drops its __cause__,
    # the context stays).
    cause = exc.__context__
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__context__
    return type(exc).__name__ if cause is None else connection_failure(cause)


def status_text(status: int) -> str:
    """ "HTTP 404 Not Found": the standard phrase of ``status``, not the server's."""
    try:
        return f"HTTP {status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"
