"""One POST to a model provider (embeddings, transcription...), retried the way providers
expect: 408, 429 and 5xx answers and unreachable endpoints are tried again with exponential
backoff and jitter, honouring ``Retry-After``. Each client turns ``ProviderHttpError`` into
its own error type with its own wording.
"""

from __future__ import annotations

import random
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message

from workers.net.retry_notices import RetryNotice, report_retry


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


class ProviderHttpError(Exception):
    """The last failure: ``status`` and ``body`` of an HTTP error answer, or ``status`` None
    when the endpoint could not be reached (``reason`` says why)."""

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
) -> ProviderResponse:
    attempt = 0
    while True:
        request = urllib.request.Request(url, data=data, headers=dict(headers), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                return ProviderResponse(
                    response.read(),
                    int(response.status),
                    str(response.headers.get("Content-Type", "")),
                )
        except urllib.error.HTTPError as exc:
            if _retryable(exc.code) and attempt < retry.max_retries:
                delay = retry.delay(attempt, exc.headers)
                _report(url, attempt, retry, f"HTTP {exc.code}: {_read_body(exc)[:200]}", delay)
                time.sleep(delay)
                attempt += 1
                continue
            raise ProviderHttpError(
                exc.code, _read_body(exc), f"HTTP {exc.code}", attempt + 1
            ) from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            timed_out = isinstance(exc, TimeoutError) or isinstance(
                getattr(exc, "reason", None), TimeoutError
            )
            if (retry.retry_timeouts or not timed_out) and attempt < retry.max_retries:
                delay = retry.delay(attempt, None)
                _report(url, attempt, retry, f"{type(exc).__name__}: {exc}", delay)
                time.sleep(delay)
                attempt += 1
                continue
            raise ProviderHttpError(None, "", str(exc), attempt + 1) from exc


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


def _retryable(status: int) -> bool:
    """Rate limiting, request timeouts and server-side failures may pass on their own."""
    return status in (408, 429) or status >= 500


def _read_body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
