"""GET a URL under an SSRF policy: connect only to validated addresses, bounded in every way.

Each hop is validated by ``ssrf.validate_url`` and connected through ``pinned`` to the
addresses it returned — never to a fresh DNS answer. Redirects are followed by hand so every
Location is validated before anything is sent to it, at most ``policy.max_redirects`` of
them. The body is read in pieces up to ``max_bytes`` (an announced Content-Length over the
cap is refused before reading), and ``timeout_s`` bounds the whole fetch, redirects
included: a watchdog shuts the socket down when time is up, so a server dribbling bytes
cannot hold a worker.
``connect_timeout_s`` bounds each TCP connect on its own (an address that never answers).

``fetch`` reads the body into memory (small things: an image); ``open_stream`` hands the
body over piece by piece, so a large download can go straight to storage.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urljoin

from core.errors import SluiceError
from core.ssrf.guard import Resolver, ValidatedUrl, percent_encoded, validate_url
from core.ssrf.url_policy import UrlPolicy
from workers.net.failures import connection_failure, status_text
from workers.net.pinned import Watchdog, pinned_connection

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Client errors a later attempt may not get: timeouts, "too early", rate limits.
_TRANSIENT_CLIENT_ERRORS = frozenset({408, 425, 429})
_READ_SIZE = 64 * 1024
USER_AGENT = "sluice-fetch/1.0"
# RFC 9110 token characters: a media type is token "/" token.
_TOKEN = r"[!#$%&'*+.^_`|~0-9a-z-]+"
_MEDIA_TYPE = re.compile(f"{_TOKEN}/{_TOKEN}")
# Top-level types a careless server may send alone ("video"): still telling, so kept.
_TOP_LEVEL_TYPES = frozenset(
    {"application", "audio", "font", "image", "message", "model", "multipart", "text", "video"}
)


class FetchError(SluiceError, ValueError):
    """The fetch failed for a reason other than the SSRF policy (HTTP status, size, time...).

    ``permanent``: the same request would fail the same way again (an HTTP 4xx, a body over
    the cap, a redirect loop), so retrying it only delays the verdict."""

    def __init__(self, reason: str, *, permanent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent


@dataclass(frozen=True)
class FetchedResource:
    url: str
    final_url: str
    content_type: str
    data: bytes


def fetch(
    url: str,
    policy: UrlPolicy,
    *,
    max_bytes: int,
    timeout_s: float,
    accept: str = "*/*",
    resolver: Resolver | None = None,
    tls: ssl.SSLContext | None = None,
) -> FetchedResource:
    """The body of a 200 response to GET ``url``; SsrfBlocked or FetchError otherwise.

    ``tls`` replaces the default verifying context (an internal CA, say); ``resolver`` the
    system resolver."""
    with open_stream(
        url,
        policy,
        max_bytes=max_bytes,
        timeout_s=timeout_s,
        accept=accept,
        resolver=resolver,
        tls=tls,
    ) as response:
        data = b"".join(response.chunks())
    return FetchedResource(url, response.final_url, response.content_type, data)


class StreamedResponse:
    """The 200 response ``open_stream`` reached: its headers now, its body as ``chunks()``."""

    def __init__(
        self,
        url: str,
        final_url: str,
        response: http.client.HTTPResponse,
        deadline: _Deadline,
        max_bytes: int,
        host: str,
    ) -> None:
        self.url = url
        self.final_url = final_url
        self.status = response.status
        self.content_type, self.charset = _media_type(response.getheader("Content-Type") or "")
        self.content_disposition = response.getheader("Content-Disposition") or ""
        # Bytes of the body handed over so far.
        self.received = 0
        self._announced = _announced_length(response)
        self._response = response
        self._deadline = deadline
        self._max_bytes = max_bytes
        self._host = host

    def limit_to(self, max_bytes: int) -> None:
        """Lower the cap before the body is read (once the caller knows what the body is
        for); an announced length over it is refused at once, like one over the first."""
        self._max_bytes = min(self._max_bytes, max_bytes)
        if self._announced is not None and self._announced > self._max_bytes:
            raise FetchError(
                f"the body is {self._announced} bytes, over the {self._max_bytes}-byte cap",
                permanent=True,
            )

    def chunks(self) -> Iterator[bytes]:
        """The body in pieces of at most 64 KiB; FetchError past ``max_bytes`` (nothing
        beyond the cap is ever handed over), on a broken connection or when time is up."""
        while True:
            self._deadline.check()
            # One bounded read at a time, so the deadline is checked between them; never
            # more than one byte past the cap, which is enough to know it was exceeded.
            wanted = min(_READ_SIZE, self._max_bytes + 1 - self.received)
            try:
                piece = self._response.read1(wanted)
            except (OSError, http.client.HTTPException) as exc:
                self._deadline.check()
                raise FetchError(f"{self._host}: {connection_failure(exc)}") from exc
            if not piece:
                self._deadline.check()  # a watchdog shutdown looks like the end of the body
                self._check_complete()
                return
            if self.received + len(piece) > self._max_bytes:
                raise FetchError(f"the body is over the {self._max_bytes}-byte cap", permanent=True)
            self.received += len(piece)
            yield piece

    def _check_complete(self) -> None:
        """http.client ends a Content-Length body the same way whether it is all there or the
        server closed the connection early; a body shorter than announced is a broken
        download (a retry may get all of it), never the file."""
        if self._announced is not None and self.received < self._announced:
            raise FetchError(
                f"{self._host}: the connection closed after {self.received} of the "
                f"{self._announced} bytes the server announced"
            )


@contextlib.contextmanager
def open_stream(
    url: str,
    policy: UrlPolicy,
    *,
    max_bytes: int,
    timeout_s: float,
    connect_timeout_s: float | None = None,
    accept: str = "*/*",
    resolver: Resolver | None = None,
    tls: ssl.SSLContext | None = None,
) -> Iterator[StreamedResponse]:
    """GET ``url`` through its redirects to a 200 response, whose body the caller reads
    inside the ``with``; SsrfBlocked or FetchError otherwise. The connection and the
    deadline's watchdog last as long as the ``with``."""
    connect_limit = timeout_s if connect_timeout_s is None else connect_timeout_s
    if min(max_bytes, timeout_s, connect_limit) <= 0:
        raise ValueError("max_bytes and the timeouts must be > 0")
    deadline = _Deadline(timeout_s)
    current = url
    for _hop in range(policy.max_redirects + 1):
        target = validate_url(current, policy, resolver=resolver)
        connection = pinned_connection(target, deadline.remaining(), connect_timeout_s, tls)
        with Watchdog(connection, deadline.left()):
            try:
                try:
                    response = _send(connection, target, accept, deadline)
                except (OSError, http.client.HTTPException) as exc:
                    deadline.check()
                    raise FetchError(f"{target.host}: {connection_failure(exc)}") from exc
                if response.status in _REDIRECTS:
                    location = _location(response)
                    if not location:
                        raise FetchError(
                            f"HTTP {response.status} redirect without a Location", permanent=True
                        )
                    current = urljoin(current, location)
                    continue
                if response.status != 200:
                    raise _status_error(response)
                _check_announced_length(response, max_bytes)
                yield StreamedResponse(url, current, response, deadline, max_bytes, target.host)
                return
            finally:
                connection.close()
    raise FetchError(f"more than {policy.max_redirects} redirects", permanent=True)


def _status_error(response: http.client.HTTPResponse) -> FetchError:
    status = response.status
    permanent = 400 <= status < 500 and status not in _TRANSIENT_CLIENT_ERRORS
    return FetchError(status_text(status), permanent=permanent)


def _location(response: http.client.HTTPResponse) -> str:
    """The redirect's Location as a URL. http.client reads header bytes as Latin-1, while a
    server sending raw non-ASCII there means UTF-8 (as browsers take it); bytes that are not
    UTF-8 are percent-encoded as they came."""
    raw = (response.getheader("Location") or "").strip().encode("latin-1")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return percent_encoded(raw)


def _announced_length(response: http.client.HTTPResponse) -> int | None:
    """The body's Content-Length, unless it is chunked (which has its own end marker, and
    whose truncation http.client reports) or the header is not a plain number."""
    if response.chunked:
        return None
    announced = (response.getheader("Content-Length") or "").strip()
    return int(announced) if announced.isdigit() else None


def _check_announced_length(response: http.client.HTTPResponse, max_bytes: int) -> None:
    announced = _announced_length(response)
    if announced is not None and announced > max_bytes:
        raise FetchError(
            f"the body is {announced} bytes, over the {max_bytes}-byte cap", permanent=True
        )


def _media_type(header: str) -> tuple[str, str]:
    """(media type, charset) of a Content-Type header, lower-case; "" for what is missing
    or unreadable. The first type of a list counts ("text/html, text/plain" is text/html);
    a top-level type alone ("video") stays as it is, since it still says what came."""
    media, _, parameters = header.partition(";")
    if "," in media:  # the parameters, if any, belong to a later type
        media, parameters = media.split(",", 1)[0], ""
    media = media.strip().lower()
    if not (_MEDIA_TYPE.fullmatch(media) or media in _TOP_LEVEL_TYPES):
        return "", ""
    return media, _charset(parameters)


def _charset(parameters: str) -> str:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"').strip().lower()
    return ""


class _Deadline:
    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._end = time.monotonic() + timeout_s

    def left(self) -> float:
        return self._end - time.monotonic()

    def check(self) -> None:
        # The whole budget spent: an attempt with the same budget ends the same way, so
        # retrying would only hold a worker for another budget (a connect refused or cut
        # early is not this, and stays retryable).
        if self.left() <= 0:
            raise FetchError(f"timed out after {self.timeout_s:g} s", permanent=True)

    def remaining(self) -> float:
        self.check()
        return self.left()


def _send(
    connection: http.client.HTTPConnection, target: ValidatedUrl, accept: str, deadline: _Deadline
) -> http.client.HTTPResponse:
    connection.timeout = deadline.remaining()
    try:
        connection.request(
            "GET",
            target.target,
            headers={
                "Accept": accept,
                "Accept-Encoding": "identity",
                "User-Agent": USER_AGENT,
                "Connection": "close",
            },
        )
    except (ValueError, http.client.InvalidURL) as exc:
        # What http.client cannot put on the wire (a character a request line or header
        # cannot carry) fails the same way every time.
        raise FetchError(
            f"{target.host}: the request cannot be sent: {type(exc).__name__}: {exc}",
            permanent=True,
        ) from exc
    return connection.getresponse()
