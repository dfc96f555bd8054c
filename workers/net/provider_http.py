"""One POST to a model provider (embeddings, transcription...), retried the way providers
expect: 408, 429 and 5xx answers and unreachable endpoints are tried again with exponential
backoff and jitter, honouring ``Retry-After``. Each client turns ``ProviderHttpError`` into
its own error type with its own wording.

A model endpoint is an outbound request like any fetch: before every attempt the URL passes
the SSRF policy (``validate_url``: scheme, ports, allow-list, addresses) and the request goes
to the addresses that passed, pinned (``workers.net.pinned``), so no DNS answer between the
check and the connection can swap in an internal address. A refusal is ``SsrfBlocked``,
raised before anything is sent and never retried. Redirects are not followed: an endpoint
answers itself. ``timeout_s`` bounds each attempt as a whole.
"""

from __future__ import annotations

import http.client
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message

from core.errors import SluiceError
from core.ssrf.guard import Resolver, ValidatedUrl, validate_url
from core.ssrf.url_policy import UrlPolicy
from workers.net.failures import connection_failure, status_text
from workers.net.pinned import Watchdog, pinned_connection
from workers.net.retry_notices import RetryNotice, report_retry

USER_AGENT = "sluice-models/1.0"


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    backoff_s: float
    max_backoff_s: float
    # A timed-out request already cost the whole timeout: some callers won't pay it twice.
    retry_timeouts: bool = True

    def delay(self, attempt: int, headers: Message | None) -> float:
        retry_after = headers.get("Retry-After") if headers is not None else None
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self.max_backoff_s)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        # Exponential backoff with jitter, so retrying workers do not stampede together.
        return min(self.backoff_s * 2.0**attempt, self.max_backoff_s) * random.uniform(0.5, 1.0)


@dataclass(frozen=True)
class ProviderResponse:
    body: bytes
    status: int
    content_type: str


class ProviderHttpError(SluiceError):
    """The last failure: ``status`` and ``body`` of an HTTP error answer, or ``status`` None
    when the endpoint could not be reached. ``reason`` says why in our own words (the
    standard phrase of the status, the kind of connection failure): it may go into an
    error message, the body never does — it is for the log."""

    def __init__(self, status: int | None, body: str, reason: str, attempts: int) -> None:
        super().__init__(reason)
        self.status = status
        self.body = body
        self.reason = reason
        self.attempts = attempts


def post_with_retries(
    url: str,
    data: bytes,
    headers: Mapping[str, str],
    *,
    timeout_s: float,
    retry: RetryPolicy,
    policy: UrlPolicy,
    resolver: Resolver | None = None,
) -> ProviderResponse:
    """The 2xx answer to POST ``data`` to ``url``; ProviderHttpError when the last attempt
    failed, SsrfBlocked when the policy refuses ``url`` (nothing sent)."""
    attempt = 0
    while True:
        # Checked again on every attempt: the name may resolve elsewhere by now.
        target = validate_url(url, policy, resolver=resolver)
        started = time.monotonic()
        try:
            response = _post_once(target, data, headers, timeout_s)
            if time.monotonic() - started >= timeout_s:
                # The watchdog shut the socket: a body read to "the end" may be cut short.
                raise TimeoutError
        except (OSError, http.client.HTTPException) as exc:
            timed_out = isinstance(exc, TimeoutError) or time.monotonic() - started >= timeout_s
            reason = f"timed out after {timeout_s:g} s" if timed_out else connection_failure(exc)
            if (retry.retry_timeouts or not timed_out) and attempt < retry.max_retries:
                delay = retry.delay(attempt, None)
                _report(url, attempt, retry, reason, delay)
                time.sleep(delay)
                attempt += 1
                continue
            raise ProviderHttpError(None, "", reason, attempt + 1) from exc
        status, answer_headers, body = response
        if 200 <= status < 300:
            return ProviderResponse(body, status, answer_headers.get("Content-Type", ""))
        if retryable_status(status) and attempt < retry.max_retries:
            delay = retry.delay(attempt, answer_headers)
            _report(url, attempt, retry, status_text(status), delay)
            time.sleep(delay)
            attempt += 1
            continue
        raise ProviderHttpError(
            status, body.decode("utf-8", errors="replace"), status_text(status), attempt + 1
        )


def _post_once(
    target: ValidatedUrl, data: bytes, headers: Mapping[str, str], timeout_s: float
) -> tuple[int, Message, bytes]:
    connection = pinned_connection(target, timeout_s, None, None)
    with Watchdog(connection, timeout_s):
        try:
            connection.request(
                "POST",
                target.target,
                body=data,
                headers={"User-Agent": USER_AGENT, **headers, "Connection": "close"},
            )
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()


def _report(url: str, attempt: int, retry: RetryPolicy, error: str, delay: float) -> None:
    report_retry(
        RetryNotice(
            operation=f"POST {url}",
            failed_try=attempt + 1,
            max_tries=retry.max_retries + 1,
            error=error,
            delay_s=round(delay, 3),
        )
    )


def retryable_status(status: int) -> bool:
    """Rate limiting, request timeouts and server-side failures may pass on their own."""
    return status in (408, 429) or status >= 500
