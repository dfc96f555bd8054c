"""Embeddings from any endpoint speaking OpenAI's `POST {base_url}/embeddings` protocol.

OpenAI, Ollama, vLLM, TEI, LocalAI... all accept `{"model", "input": [...]}` and answer
`{"data": [{"index", "embedding"}, ...]}`. `base_url` is what OpenAI's SDK calls it, i.e. it
already ends in `/v1`. Pictures go in the same request as `{"image": "data:...;base64,..."}`
inputs, the form Jina's and Azure AI Inference's multimodal embedding endpoints take (only
for a model configured to accept them). Every request passes the SSRF policy first
(provider_endpoint). Error messages say what went wrong without the answer's bytes; the
body of a bad answer is logged.
"""

from __future__ import annotations

import base64
import json
import math
import threading
from collections.abc import Sequence
from typing import Any

from core.ssrf.guard import Resolver
from core.ssrf.url_policy import UrlPolicy
from workers.embedding.base import (
    EmbeddingEndpointRefused,
    EmbeddingError,
    EmbeddingProviderError,
    PreparedImage,
)
from workers.net.provider_endpoint import BODY_EXCERPT, ProviderCallError, ProviderEndpoint
from workers.net.provider_http import RetryPolicy


class OpenAIEmbedder:
    """Thread-safe; its requests share kept-alive connections (ProviderEndpoint)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        dimension: int | None = None,
        *,
        policy: UrlPolicy,
        resolver: Resolver | None = None,
        timeout: float = 60.0,
        batch_size: int = 32,
        max_retries: int = 4,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 10.0,
    ) -> None:
        if not base_url or not model:
            raise EmbeddingError("an OpenAI-compatible embedder needs base_url and model")
        if batch_size <= 0:
            raise EmbeddingError(f"batch_size must be positive, got {batch_size}")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._batch_size = batch_size
        self._endpoint = ProviderEndpoint(
            self._url,
            kind="embedding",
            model=model,
            api_key=api_key,
            policy=policy,
            resolver=resolver,
            timeout_s=timeout,
            retry=RetryPolicy(max_retries, backoff_seconds, max_backoff_seconds),
        )
        self._dimension = dimension
        self._dimension_lock = threading.Lock()

    @property
    def model_key(self) -> str:
        return f"openai/{self._model}/{self.dimension}"

    @property
    def dimension(self) -> int:
        """The configured dimension, else the one the endpoint returned first (asked if needed)."""
        dimension = self._dimension
        if dimension is None:
            dimension = len(self.embed_query("dimension probe"))
        return dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(self._embed_batch(texts[start : start + self._batch_size]))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self._embed_batch([text])[0]

    def embed_images(self, images: Sequence[PreparedImage]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(images), self._batch_size):
            batch = images[start : start + self._batch_size]
            vectors.extend(self._embed_batch([{"image": _data_url(i)} for i in batch]))
        return vectors

    def _embed_batch(self, inputs: Sequence[str | dict[str, str]]) -> list[list[float]]:
        payload = self._post({"model": self._model, "input": list(inputs)})
        vectors = _parse_vectors(payload, expected=len(inputs), endpoint=self._endpoint)
        for vector in vectors:
            self._check_dimension(len(vector))
        return [_normalised(v) for v in vectors]

    def _check_dimension(self, size: int) -> None:
        with self._dimension_lock:
            if self._dimension is None:
                self._dimension = size
        if size != self._dimension:
            raise EmbeddingProviderError(
                f"{self._url} returned {size}-dimensional vectors for {self._model}, "
                f"expected {self._dimension}",
                status=200,
            )

    def _post(self, body: dict[str, Any]) -> Any:
        try:
            return self._endpoint.post_json(body)
        except ProviderCallError as exc:
            if exc.refused:
                raise EmbeddingEndpointRefused(self._url, exc.reason) from exc
            raise EmbeddingProviderError(
                str(exc), status=exc.status, body=exc.body, endpoint=self._url, model=self._model
            ) from exc


def _parse_vectors(payload: Any, *, expected: int, endpoint: ProviderEndpoint) -> list[list[float]]:
    def malformed(reason: str) -> EmbeddingProviderError:
        exc = endpoint.malformed(reason, json.dumps(payload)[:BODY_EXCERPT])
        return EmbeddingProviderError(str(exc), status=exc.status, body=exc.body)

    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise malformed("without a data list")
    if len(data) != expected:
        raise malformed(f"{len(data)} embeddings for {expected} inputs")
    by_index: dict[int, list[float]] = {}
    for position, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
            raise malformed(f"an item without an embedding list at position {position}")
        index = item.get("index", position)
        embedding = item["embedding"]
        if not isinstance(index, int) or not 0 <= index < expected or index in by_index:
            raise malformed(f"a bad or repeated index {index!r}")
        if not embedding or not all(isinstance(x, int | float) for x in embedding):
            raise malformed(f"a non-numeric or empty embedding at index {index}")
        by_index[index] = [float(x) for x in embedding]
    return [by_index[i] for i in range(expected)]


def _normalised(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0 or not math.isfinite(norm):
        raise EmbeddingProviderError(f"the endpoint returned a vector of norm {norm}", status=200)
    return [x / norm for x in vector]


def _data_url(image: PreparedImage) -> str:
    return f"data:{image.mime_type};base64,{base64.b64encode(image.data).decode('ascii')}"
