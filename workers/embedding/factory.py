"""Builds the embedder a knowledge base's configuration names."""

from __future__ import annotations

import threading

from core import local_models
from core.local_models import LocalModel
from core.ssrf.url_policy import UrlPolicy
from workers.embedding.base import Embedder, EmbeddingError
from workers.embedding.local_onnx import LocalOnnxEmbedder
from workers.embedding.local_use import LocalUseEmbedder
from workers.embedding.openai_http import OpenAIEmbedder

_local_lock = threading.Lock()
_local: dict[LocalModel, Embedder] = {}


def build_embedder(
    provider: str,
    model: str,
    base_url: str,
    api_key: str,
    dimensions: int,
    *,
    policy: UrlPolicy,
    local_threads: int = 0,
) -> Embedder:
    """`local` -> one of the bundled models (local_models; one instance of each per process,
    running on `local_threads` onnxruntime threads, 0 = one per core);
    `openai` -> an OpenAI-compatible endpoint (`dimensions` 0 means "ask the endpoint"),
    every request to it held to the SSRF ``policy``."""
    kind = provider.strip().lower()
    if kind == "local":
        try:
            shipped = local_models.local_model(model)
        except local_models.UnknownLocalModel as exc:
            raise EmbeddingError(str(exc)) from exc
        if dimensions not in (0, shipped.dimension):
            raise EmbeddingError(
                f"{shipped.name} makes {shipped.dimension}-dimensional vectors, not {dimensions}"
            )
        return shared_local_embedder(shipped, local_threads)
    if kind == "openai":
        if dimensions < 0:
            raise EmbeddingError(f"invalid dimensions {dimensions}")
        return OpenAIEmbedder(base_url, model, api_key, dimension=dimensions or None, policy=policy)
    raise EmbeddingError(f"unknown embedding provider {provider!r} (known: local, openai)")


def shared_local_embedder(model: LocalModel = local_models.DEFAULT, threads: int = 0) -> Embedder:
    """The process-wide instance of a local model: loading it costs memory and time, and one
    session serves every thread. The first call's `threads` (0 = one per core) sets its
    size; a process takes them all from the same Settings."""
    with _local_lock:
        embedder = _local.get(model)
        if embedder is None:
            embedder = _local[model] = new_local_embedder(model, threads=threads)
        return embedder


def new_local_embedder(model: LocalModel, *, batch_size: int = 32, threads: int = 0) -> Embedder:
    """A fresh instance of a local model (benchmarks measure one of their own)."""
    if model == local_models.MINILM:
        return LocalOnnxEmbedder(batch_size=batch_size, intra_op_num_threads=threads or None)
    return LocalUseEmbedder(batch_size=batch_size, intra_op_num_threads=threads or None)
