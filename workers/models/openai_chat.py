"""Chat and vision through any endpoint speaking OpenAI's `POST {base_url}/chat/completions`.

OpenAI, Ollama (`http://host:11434/v1`), vLLM (`http://host:8000/v1`), LocalAI, LM Studio...
all take `{"model", "messages": [...]}` — a message's content is text, or a list of parts
(`{"type": "text"}`, `{"type": "image_url", "image_url": {"url": "data:..."}}`) for a model
that sees images — and answer `{"choices": [{"message": {"content": ...}}]}`. A JSON answer
is asked for with `response_format: {"type": "json_schema", ...}` (structured outputs; vLLM
and Ollama constrain decoding to the schema). Every request goes through ProviderEndpoint:
SSRF-checked, timed, retried on 408/429/5xx and unreachable endpoints, and held to the
model's concurrency limit.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from core.model_configs import ChatModelConfig
from core.ssrf.guard import Resolver
from core.ssrf.url_policy import UrlPolicy
from workers.models.errors import ModelError, ModelUnavailable, model_error
from workers.models.protocols import ChatMessage
from workers.net.provider_endpoint import BODY_EXCERPT, ProviderCallError, ProviderEndpoint
from workers.net.provider_http import RetryPolicy

# The name OpenAI requires for a response_format schema (letters, digits, "_" and "-").
_SCHEMA_NAME = "answer"


class OpenAIChatModel:
    """One model at one endpoint: a ChatModel, and a VisionModel when the model sees
    images. Thread-safe; its requests share kept-alive connections (ProviderEndpoint)."""

    def __init__(
        self,
        config: ChatModelConfig,
        *,
        policy: UrlPolicy,
        resolver: Resolver | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        max_backoff_s: float = 20.0,
        limit: threading.Semaphore | None = None,
    ) -> None:
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        self._subject = f"{config.model} at {self.url}"
        self._endpoint = ProviderEndpoint(
            self.url,
            kind="chat model",
            model=config.model,
            api_key=config.api_key,
            policy=policy,
            resolver=resolver,
            timeout_s=timeout_s,
            # A generation that timed out cost the whole timeout and would likely again: the
            # step's own retry decides whether to pay it twice.
            retry=RetryPolicy(max_retries, backoff_s, max_backoff_s, retry_timeouts=False),
            limit=limit,
        )

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_schema: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        wire = [{"role": m.role, "content": m.content} for m in messages]
        text = self._chat(wire, json_schema=json_schema, max_tokens=max_tokens)
        if json_schema is not None:
            try:
                json.loads(text)
            except ValueError as exc:
                raise self._malformed("content that is not the JSON asked for", text) from exc
        return text

    def describe(self, image: bytes, mime_type: str, prompt: str) -> str:
        data_url = f"data:{mime_type};base64,{base64.b64encode(image).decode('ascii')}"
        parts = [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": data_url}},
        ]
        return self._chat([{"role": "user", "content": parts}])

    def _chat(
        self,
        messages: list[dict[str, Any]],
        *,
        json_schema: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        body: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": _SCHEMA_NAME, "schema": dict(json_schema)},
            }
        try:
            payload = self._endpoint.post_json(body)
        except ProviderCallError as exc:
            raise model_error(exc, self._subject) from exc
        return self._content(payload)

    def _content(self, payload: Any) -> str:
        choices = payload.get("choices") if isinstance(payload, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise self._malformed("without a choice message", payload)
        content = message.get("content")
        if isinstance(content, list):
            # Some servers answer in parts, like the request's.
            content = "".join(
                str(part.get("text", "")) for part in content if isinstance(part, dict)
            )
        if not isinstance(content, str) or not content.strip():
            what = "a refusal" if message.get("refusal") else "an empty message"
            raise self._malformed(what, payload)
        return content.strip()

    def _malformed(self, what: str, payload: Any) -> ModelError:
        body = payload if isinstance(payload, str) else json.dumps(payload)
        exc = self._endpoint.malformed(what, body[:BODY_EXCERPT])
        return ModelUnavailable(str(exc), status=exc.status)
