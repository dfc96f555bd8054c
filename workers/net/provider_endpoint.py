"""One operation of an OpenAI-compatible model endpoint (``{base_url}/embeddings``,
``/audio/transcriptions``, ``/chat/completions``...) for one model: the bearer credential,
the SSRF policy on every attempt, the timeout, the retries and the concurrency limit
(provider_http), and every failure described in our own words as one ProviderCallError.

Each provider client (embedding, ASR, chat, VLM) turns that error into its own kind; the
answer's bytes never go into a message — they are logged here, for whoever runs the worker.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
import time
from collections.abc import Mapping
from typing import Any

from core.errors import SluiceError
from core.ssrf.guard import Resolver
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from workers.net.pinned_client import PinnedClient
from workers.net.provider_http import (
    ProviderHttpError,
    ProviderResponse,
    RetryPolicy,
    post_with_retries,
    retryable_status,
)
from workers.observability.metrics import metrics

BODY_EXCERPT = 2000

log = logging.getLogger(__name__)


class ProviderCallError(SluiceError):
    """A call to a model endpoint failed. ``refused``: the SSRF policy refuses the endpoint
    (``reason`` names the rule; nothing was sent). Otherwise ``status`` is the HTTP status
    of the answer (200 for one we cannot read), None when the endpoint could not be
    reached; ``body`` is the answer, for the log."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: str = "",
        reason: str = "",
        refused: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.reason = reason
        self.refused = refused

    @property
    def final(self) -> bool:
        """The same call fails the same way until the configuration changes: a refused
        endpoint, or a 4xx answer that is not worth retrying (bad credentials, an unknown
        model, a request the model rejects)."""
        if self.refused:
            return True
        return (
            self.status is not None
            and 400 <= self.status < 500
            and not retryable_status(self.status)
        )


class ProviderEndpoint:
    """Thread-safe; its requests share a pool of kept-alive connections. ``kind`` names the
    endpoint in messages and logs ("embedding", "ASR", "chat model"...); ``tls`` replaces
    the system's CAs (a private CA's endpoint)."""

    def __init__(
        self,
        url: str,
        *,
        kind: str,
        model: str,
        api_key: str,
        policy: UrlPolicy,
        resolver: Resolver | None,
        timeout_s: float,
        retry: RetryPolicy,
        limit: threading.Semaphore | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.url = url
        self.kind = kind
        self.model = model
        self._api_key = api_key
        self._policy = policy
        self._resolver = resolver
        self._timeout_s = timeout_s
        self._retry = retry
        self._limit = limit
        self._client = PinnedClient(tls)
        # The kind as a label of the provider metrics: "chat model" -> "chat_model".
        self._metric_kind = kind.lower().replace(" ", "_")

    def post(
        self, body: bytes, content_type: str, *, accept: str = "application/json"
    ) -> ProviderResponse:
        """The 2xx answer to POST ``body``; ProviderCallError otherwise. Timed, and counted
        when it fails, in the provider metrics (workers.observability.metrics)."""
        started, outcome = time.perf_counter(), "error"
        try:
            answer = self._post(body, content_type, accept)
            outcome = "ok"
            return answer
        except ProviderCallError as exc:
            metrics().provider_errors.labels(self._metric_kind, _error_reason(exc)).inc()
            raise
        finally:
            metrics().provider_duration.labels(self._metric_kind, outcome).observe(
                time.perf_counter() - started
            )

    def _post(self, body: bytes, content_type: str, accept: str) -> ProviderResponse:
        headers = {"Content-Type": content_type, "Accept": accept}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        try:
            return post_with_retries(
                self.url,
                body,
                headers,
                timeout_s=self._timeout_s,
                retry=self._retry,
                policy=self._policy,
                client=self._client,
                resolver=self._resolver,
                limit=self._limit,
            )
        except SsrfBlocked as exc:
            raise ProviderCallError(
                f"the {self.kind} endpoint {self.url} is refused by the SSRF policy: {exc.reason}",
                reason=exc.reason,
                refused=True,
            ) from exc
        except ProviderHttpError as exc:
            if exc.status is None:
                raise ProviderCallError(
                    f"cannot reach {self.url} after {exc.attempts} attempts: {exc.reason}",
                    reason=exc.reason,
                ) from exc
            self.log_answer(exc.reason, exc.body)
            raise ProviderCallError(
                f"{self.url} answered {exc.reason} for model {self.model} (the answer is in "
                "the worker log)",
                status=exc.status,
                body=exc.body,
                reason=exc.reason,
            ) from exc

    def post_json(self, payload: Mapping[str, Any]) -> Any:
        """The JSON answer to POST ``payload`` as JSON."""
        response = self.post(json.dumps(payload).encode("utf-8"), "application/json")
        try:
            return json.loads(response.body)
        except ValueError as exc:
            text = response.body.decode("utf-8", errors="replace")
            raise self.malformed(
                f"HTTP {response.status} with invalid JSON", text, status=response.status
            ) from exc

    def malformed(self, what: str, body: str, *, status: int = 200) -> ProviderCallError:
        """The error of an answer we cannot use (``what`` says why); its body is logged."""
        self.log_answer(what, body)
        metrics().provider_errors.labels(self._metric_kind, "malformed").inc()
        return ProviderCallError(
            f"{self.url} answered {what}", status=status, body=body, reason=what
        )

    def log_answer(self, what: str, body: str) -> None:
        log.warning(
            "%s endpoint %s answered %s: %s", self.kind, self.url, what, body[:BODY_EXCERPT]
        )


def _error_reason(error: ProviderCallError) -> str:
    """The reason label of a failed call: refused by the SSRF policy, the HTTP status of the
    last answer, or no answer at all."""
    if error.refused:
        return "refused"
    return f"http_{error.status}" if error.status is not None else "unreachable"
