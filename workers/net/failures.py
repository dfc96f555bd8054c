"""What went wrong on an outbound connection, in our own words only.

The text of an exception http.client raises while reading an answer carries the bytes the
server sent ("BadStatusLine: '\\x00\\x00\\x12\\x04...'" from a gRPC port, a Redis error line),
and a server's reason phrase is whatever it chose to put there. Error messages go back to
whoever asked for the URL, so they name the kind of failure and the standard phrase of the
status, never anything the server sent.
"""

from __future__ import annotations

import http
import http.client
import ssl


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


def status_text(status: int) -> str:
    """"HTTP 404 Not Found": the standard phrase of ``status``, not the server's."""
    try:
        return f"HTTP {status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"
