"""The bundled all-MiniLM-L6-v2 (int8 ONNX) running for real on onnxruntime."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import psutil
import pytest

from core import local_models
from core.ssrf.url_policy import UrlPolicy
from workers.embedding.base import EmbeddingError
from workers.embedding.factory import build_embedder, shared_local_embedder
from workers.embedding.local_onnx import RUN_TOKENS, LocalOnnxEmbedder
from workers.embedding.openai_http import OpenAIEmbedder


@pytest.fixture(scope="module")
def embedder() -> LocalOnnxEmbedder:
    # A small batch size so a handful of texts already spans several batches.
    return LocalOnnxEmbedder(batch_size=3, intra_op_num_threads=2)


def cos(a: Sequence[float], b: Sequence[float]) -> float:
    return float(np.dot(a, b))


TEXTS = [
    "I like to eat",
    "The quarterly report shows revenue growth across all regions and product lines " * 3,
    "a tasty meal",
    "Поиск документов",
    "stock market crash",
    "机器学习",
    "x",
    "A much longer sentence about cooking dinner at home with friends on a rainy evening.",
]


def test_identity(embedder: LocalOnnxEmbedder) -> None:
    assert embedder.model_key == "local/all-MiniLM-L6-v2/384"
    assert embedder.dimension == 384
    assert len(embedder.embed_query("hello")) == 384


def test_similar_meanings_are_closer(embedder: LocalOnnxEmbedder) -> None:
    eat, meal, crash = embedder.embed_documents(
        ["I like to eat", "a tasty meal", "stock market crash"]
    )
    assert cos(eat, meal) > 0.4
    assert cos(eat, meal) > cos(eat, crash) + 0.3


def test_vectors_are_normalised(embedder: LocalOnnxEmbedder) -> None:
    for vector in embedder.embed_documents(TEXTS):
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_batched_vectors_equal_single_ones_in_input_order(embedder: LocalOnnxEmbedder) -> None:
    batched = embedder.embed_documents(TEXTS)
    assert len(batched) == len(TEXTS)
    for text, vector in zip(TEXTS, batched, strict=True):
        np.testing.assert_allclose(vector, embedder.embed_query(text), atol=1e-5)


def test_a_batch_of_long_texts_is_embedded_in_runs_that_give_their_memory_back(
    embedder: LocalOnnxEmbedder,
) -> None:
    """32 texts of 256 tokens go through the model in runs of RUN_TOKENS padded tokens, in
    input order, with the same vectors as one at a time; and what the runs allocated is
    handed back: onnxruntime's arena kept about 550 MB after such a batch before."""
    fresh = LocalOnnxEmbedder()
    fresh.embed_documents(["a short text loads the model"])
    process = psutil.Process()
    loaded = process.memory_info().rss
    long_texts = [f"paragraph {n} " + "words of a long section heading " * 60 for n in range(32)]
    vectors = fresh.embed_documents(long_texts)
    assert process.memory_info().rss - loaded < 96 << 20
    assert RUN_TOKENS < 32 * 256, "a batch this long must be cut into several runs"
    for text, vector in zip(long_texts[::8], vectors[::8], strict=True):
        np.testing.assert_allclose(vector, embedder.embed_query(text), atol=1e-5)


def test_long_inputs_are_truncated_to_256_tokens(embedder: LocalOnnxEmbedder) -> None:
    # "word" is one token; both texts exceed 256 tokens, so both keep the same first 254 words.
    long_a, long_b, short = embedder.embed_documents(["word " * 600, "word " * 300, "word " * 100])
    np.testing.assert_allclose(long_a, long_b, atol=1e-6)
    assert cos(long_a, short) < 1 - 1e-4


def test_empty_input_gives_no_vectors(embedder: LocalOnnxEmbedder) -> None:
    assert embedder.embed_documents([]) == []


def test_shared_between_threads(embedder: LocalOnnxEmbedder) -> None:
    expected = embedder.embed_documents(TEXTS)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: embedder.embed_documents(TEXTS), range(4)))
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-6)


def test_factory_shares_one_local_model() -> None:
    """An unnamed local model is MiniLM: what such stored configurations always meant."""
    first = build_embedder("local", "", "", "", 0, policy=UrlPolicy())
    second = build_embedder(" Local ", "all-MiniLM-L6-v2", "", "", 384, policy=UrlPolicy())
    assert first is second is shared_local_embedder(local_models.MINILM)
    assert first.model_key == "local/all-MiniLM-L6-v2/384"


@pytest.mark.parametrize(
    ("provider", "model", "dimensions", "message"),
    [
        ("local", "bge-m3", 0, "the local provider ships"),
        ("local", "", 768, "384-dimensional"),
        ("cohere", "embed", 0, "unknown embedding provider"),
        ("openai", "", 0, "needs base_url and model"),
    ],
)
def test_factory_rejects_what_it_cannot_build(
    provider: str, model: str, dimensions: int, message: str
) -> None:
    with pytest.raises(EmbeddingError, match=message):
        build_embedder(provider, model, "", "", dimensions, policy=UrlPolicy())


def test_factory_builds_an_openai_compatible_client() -> None:
    embedder = build_embedder(
        "openai", "text-embedding-3-small", "http://127.0.0.1:1/v1", "k", 8, policy=UrlPolicy()
    )
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model_key == "openai/text-embedding-3-small/8"  # known without a request
