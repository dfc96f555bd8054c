"""The chat and vision models a knowledge base's (or an upload's) effective configuration
names, built once per configuration and process.

A client is cached by the whole model configuration (provider, model, endpoint, key), as
the embedders are, so two knowledge bases naming the same model at different endpoints or
with different keys never share one. The concurrency limit is per model at its endpoint,
shared by every client of it: the provider sees at most ``concurrency`` requests of this
process in flight, however many knowledge bases and threads ask.

Callers with many calls to make at once (a question batch) queue them on the model's call
pool (``call_pool``): ``concurrency`` threads taking calls in the order they were queued,
so one caller's calls go out before the next caller's and the limit stays full while the
first writes its results (per-caller threads contending for the limit would interleave
the callers, and all of them would wait at once).

The endpoint is SSRF-checked here, when a configuration is first resolved (and again on
every call, by the client): a refused endpoint, an unknown provider or a missing base_url
is ModelUnusable at once, before any request.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field

from core.model_configs import CHAT_PROVIDERS, ChatModelConfig, VlmConfig
from core.ssrf.guard import Resolver, validate_url
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from workers.models.errors import ENDPOINT_REFUSED, MISCONFIGURED, ModelUnusable
from workers.models.openai_chat import OpenAIChatModel
from workers.models.protocols import ChatModel, VisionModel


@dataclass
class ModelRegistry:
    """``policy`` gives the SSRF policy (read when a client is built: the process's own
    ports are known by then); ``timeout_s`` bounds each request, ``max_retries`` the
    retries of one call."""

    policy: Callable[[], UrlPolicy] = UrlPolicy
    concurrency: int = 4
    timeout_s: float = 120.0
    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 20.0
    resolver: Resolver | None = None
    _clients: dict[ChatModelConfig, OpenAIChatModel] = field(default_factory=dict)
    _limits: dict[tuple[str, str], threading.BoundedSemaphore] = field(default_factory=dict)
    # By the process that made them: a forked work horse gets none of its parent's threads.
    _pools: dict[tuple[int, str, str], ThreadPoolExecutor] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def chat(self, config: ChatModelConfig) -> ChatModel | None:
        """The chat model ``config`` names; None when it names none."""
        return self._client(config) if config.configured else None

    def vision(self, config: VlmConfig) -> VisionModel | None:
        """The VLM ``config`` names; None when it names none."""
        return self._client(config.model) if config.model.configured else None

    def call_pool(self, config: ChatModelConfig) -> Executor:
        """The threads that make queued calls to the model ``config`` names, as many as its
        concurrency limit, first queued first sent (cancel a future to drop its call)."""
        with self._lock:
            key = (os.getpid(), *_limit_key(config))
            pool = self._pools.get(key)
            if pool is None:
                pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="sluice-model")
                self._pools[key] = pool
            return pool

    def _client(self, config: ChatModelConfig) -> OpenAIChatModel:
        with self._lock:
            client = self._clients.get(config)
            if client is None:
                policy = self.policy()
                _check(config, policy, self.resolver)
                limit = self._limits.setdefault(
                    _limit_key(config), threading.BoundedSemaphore(self.concurrency)
                )
                client = OpenAIChatModel(
                    config,
                    policy=policy,
                    resolver=self.resolver,
                    timeout_s=self.timeout_s,
                    max_retries=self.max_retries,
                    backoff_s=self.backoff_s,
                    max_backoff_s=self.max_backoff_s,
                    limit=limit,
                )
                self._clients[config] = client
            return client


def _limit_key(config: ChatModelConfig) -> tuple[str, str]:
    """What one concurrency limit covers: a model at an endpoint."""
    return config.base_url.rstrip("/"), config.model


def _check(config: ChatModelConfig, policy: UrlPolicy, resolver: Resolver | None) -> None:
    subject = f"{config.model} at {config.base_url or '(no base_url)'}"
    provider = config.provider or "openai"
    if provider not in CHAT_PROVIDERS:
        raise ModelUnusable(
            MISCONFIGURED,
            subject,
            f"unknown model provider {config.provider!r} for {config.model} (known: "
            f"{', '.join(CHAT_PROVIDERS)}, all OpenAI-compatible endpoints)",
        )
    if not config.base_url:
        # No silent default endpoint: documents must not go to a third party nobody named.
        raise ModelUnusable(
            MISCONFIGURED, subject, f"the model {config.model!r} has no base_url to call"
        )
    try:
        validate_url(config.base_url, policy, resolver=resolver)
    except SsrfBlocked as exc:
        raise ModelUnusable(
            ENDPOINT_REFUSED,
            subject,
            f"the chat model endpoint {config.base_url} is refused by the SSRF policy: "
            f"{exc.reason}",
        ) from exc
