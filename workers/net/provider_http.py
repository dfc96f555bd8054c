"""One POST to a model provider (embeddings, transcription, chat...), retried the way
providers expect: 408, 429 and 5xx answers and unreachable endpoints are tried again
(tenacity) with exponential backoff and full jitter, honouring ``Retry-After``; any other
answer is final at once. Each failed try that is retried is reported as a retry notice.

A model endpoint is an outbound request like any fetch: before every attempt the URL passes
the SSRF policy (``validate_url``: scheme, ports, allow-list, addresses) and the request goes
over httpx to the addresses that passed, pinned (``workers.net.pinned_client``), so no DNS
answer between the check and the connection can swap in an internal address. A refusal is
``SsrfBlocked``, raised before anything is sent and never retried. Redirects are not
followed: an endpoint answers itself. ``timeout_s`` bounds each attempt as a whole; ``limit``,
when given, is held for each attempt (not during the backoff), which caps the requests in
flight to a model. The endpoint's PinnedClient keeps connections alive between calls.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_base, wait_random_exponential

from core.errors import SluiceError
from core.ssrf.guard import Resolver, ValidatedUrl, validate_url
from core.ssrf.url_policy import UrlPolicy
from workers.net.failures import status_text, transport_failure
from workers.net.pinned_client import PinnedClient
from workers.net.retry_notices import RetryNotice, report_retry

USER_AGENT = "sluice-models/1.0"


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    backoff_s: float
    max_backoff_s: float
    # A timed-out request already cost the whole timeout: some callers won't pay it twice.
    retry_timeouts: bool = True


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


class _FailedTry(Exception):
    """One try's failure, as tenacity sees it: an error answer or no answer at all."""

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        headers: httpx.Headers | None = None,
        body: bytes = b"",
        timed_out: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.headers = headers
        self.body = body
        self.timed_out = timed_out

    def worth_retrying(self, retry: RetryPolicy) -> bool:
        if self.status is None:
            return retry.retry_timeouts or not self.timed_out
        return retryable_status(self.status)


class _RetryAfterOrBackoff(wait_base):
    """The answer's ``Retry-After`` (in seconds, capped) when it gives one, else ``backoff``."""

    def __init__(self, backoff: wait_base, cap_s: float) -> None:
        self._backoff = backoff
        self._cap_s = cap_s

    def __call__(self, retry_state: RetryCallState) -> float:
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        headers = failure.headers if isinstance(failure, _FailedTry) else None
        retry_after = headers.get("Retry-After") if headers is not None else None
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self._cap_s)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        return float(self._backoff(retry_state))


def post_with_retries(
    url: str,
    data: bytes,
    headers: Mapping[str, str],
    *,
    timeout_s: float,
    retry: RetryPolicy,
    policy: UrlPolicy,
    client: PinnedClient,
    resolver: Resolver | None = None,
    limit: threading.Semaphore | None = None,
) -> ProviderResponse:
    """The 2xx answer to POST ``data`` to ``url`` through ``client``; ProviderHttpError when
    the last attempt failed, SsrfBlocked when the policy refuses ``url`` (nothing sent)."""

    def report(state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome else None
        report_retry(
            RetryNotice(
                operation=f"POST {url}",
                failed_try=state.attempt_number,
                max_tries=retry.max_retries + 1,
                error=failure.reason if isinstance(failure, _FailedTry) else repr(failure),
                delay_s=round(state.upcoming_sleep, 3),
            )
        )

    retrying = Retrying(
        stop=stop_after_attempt(retry.max_retries + 1),
        wait=_RetryAfterOrBackoff(
            wait_random_exponential(multiplier=retry.backoff_s, max=retry.max_backoff_s),
            retry.max_backoff_s,
        ),
        retry=retry_if_exception(
            lambda exc: isinstance(exc, _FailedTry) and exc.worth_retrying(retry)
        ),
        before_sleep=report,
        reraise=True,
    )
    try:
        return retrying(_try_once, client, url, data, headers, timeout_s, policy, resolver, limit)
    except _FailedTry as failure:
        attempts = int(retrying.statistics.get("attempt_number", 1))
        body = failure.body.decode("utf-8", errors="replace")
        raise ProviderHttpError(
            failure.status, body, failure.reason, attempts
        ) from failure.__cause__


def _try_once(
    client: PinnedClient,
    url: str,
    data: bytes,
    headers: Mapping[str, str],
    timeout_s: float,
    policy: UrlPolicy,
    resolver: Resolver | None,
    limit: threading.Semaphore | None,
) -> ProviderResponse:
    # Checked again on every attempt: the name may resolve elsewhere by now.
    target = validate_url(url, policy, resolver=resolver)
    if limit is None:
        return _send(client, target, data, headers, timeout_s)
    with limit:
        return _send(client, target, data, headers, timeout_s)


def _send(
    client: PinnedClient,
    target: ValidatedUrl,
    data: bytes,
    headers: Mapping[str, str],
    timeout_s: float,
) -> ProviderResponse:
    # Uncompressed, as an answer is read whole: a compressed one could expand far beyond
    # what the endpoint sent in its time.
    request_headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity", **headers}
    try:
        answer = client.post(target, data, request_headers, timeout_s)
    except httpx.TransportError as exc:
        timed_out = isinstance(exc, httpx.TimeoutException)
        reason = f"timed out after {timeout_s:g} s" if timed_out else transport_failure(exc)
        raise _FailedTry(reason, timed_out=timed_out) from exc
    status = answer.status_code
    if 200 <= status < 300:
        return ProviderResponse(answer.content, status, answer.headers.get("Content-Type", ""))
    raise _FailedTry(
        status_text(status), status=status, headers=answer.headers, body=answer.content
    )


def retryable_status(status: int) -> bool:
    """Rate limiting, request timeouts and server-side failures may pass on their own."""
    return status in (408, 429) or status >= 500
