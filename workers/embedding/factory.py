"""Builds the embedder a knowledge base's configuration names."""

from __future__ import annotations

import threading

from workers.embedding import local_onnx
from workers.embedding.base import Embedder, EmbeddingError
from workers.embedding.local_onnx import LocalOnnxEmbedder
from workers.embedding.openai_http import OpenAIEmbedder
from workers.net.ssrf import UrlPolicy

# Names a configuration may use for the one model the local provider ships.
_LOCAL_MODEL_NAMES = frozenset(
    {"", local_onnx.MODEL_NAME.lower(), f"sentence-transformers/{local_onnx.MODEL_NAME.lower()}"}
)

_local_lock = threading.Lock()
_local: LocalOnnxEmbedder | None = None


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
    """`local` -> the bundled all-MiniLM-L6-v2 (one instance per process, running on
    `local_threads` onnxruntime threads, 0 = one per core);
    `openai` -> an OpenAI-compatible endpoint (`dimensions` 0 means "ask the endpoint"),
    every request to it held to the SSRF ``policy``."""
    kind = provider.strip().lower()
    if kind == "local":
        if model.strip().lower() not in _LOCAL_MODEL_NAMES:
            raise EmbeddingError(
                f"the local provider ships only {local_onnx.MODEL_NAME}, not {model!r}"
            )
        if dimensions not in (0, local_onnx.DIMENSION):
            raise EmbeddingError(
                f"{local_onnx.MODEL_NAME} makes {local_onnx.DIMENSION}-dimensional vectors, "
                f"not {dimensions}"
            )
        return shared_local_embedder(local_threads)
    if kind == "openai":
        if dimensions < 0:
            raise EmbeddingError(f"invalid dimensions {dimensions}")
        return OpenAIEmbedder(
            base_url, model, api_key, dimension=dimensions or None, policy=policy
        )
    raise EmbeddingError(f"unknown embedding provider {provider!r} (known: local, openai)")


def shared_local_embedder(threads: int = 0) -> LocalOnnxEmbedder:
    """The process-wide local model: loading it costs memory and time, and one session
    serves every thread. The first call's `threads` (0 = one per core) sets its size; a
    process takes them all from the same Settings."""
    global _local
    with _local_lock:
        if _local is None:
            _local = LocalOnnxEmbedder(intra_op_num_threads=threads or None)
        return _local
