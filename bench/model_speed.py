"""(m) The local models side by side, in one run: the multilingual default
(universal-sentence-encoder-multilingual-3) against all-MiniLM-L6-v2.

Speed: embeddings/s for 32 texts of about 64 and about 256 MiniLM tokens, in one call each
(as the embedding stage sends a batch), on `--threads` onnxruntime threads; the two models
alternate round by round, so a neighbour slows both alike, and each figure is the best round.
Quality: for the eight Russian and eight Chinese handbook questions of
tests/integration/embedding/test_local_use.py, how many rank their own passage first among
that language's eight, and how many rank the English one first among the English eight.
Load: seconds to build each model from its installed package.

    .venv/bin/python -m bench.model_speed [--quick] [--threads 2] [--rounds 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from bench.report import verdict, write_result
from core import local_models
from core.local_models import LocalModel
from tests.integration.embedding.test_local_use import PASSAGES, QUESTIONS
from workers.embedding.base import Embedder
from workers.embedding.factory import new_local_embedder

NAME = "model_speed"
# The default may be this much slower than MiniLM before ingestion suffers visibly.
TARGET_RATIO = 0.5
MODELS = (local_models.DEFAULT, local_models.MINILM)
SENTENCE = (
    "The committee reviewed the quarterly maintenance report for the northern plant and "
    "found that the cooling pumps, valves and pressure sensors had been inspected on "
    "schedule, although two replacement parts arrived late. "
)


def texts_of(words: int) -> list[str]:
    """32 distinct texts of `words` words (about 1.2 MiniLM tokens a word)."""
    pool = (SENTENCE * 40).split()
    return [f"{n} " + " ".join(pool[n % 9 : n % 9 + words]) for n in range(32)]


def rate(embedder: Embedder, texts: Sequence[str]) -> float:
    start = time.perf_counter()
    embedder.embed_documents(list(texts))
    return len(texts) / (time.perf_counter() - start)


def hits(embedder: Embedder, language: str, against: str) -> int:
    passages = np.asarray(embedder.embed_documents(PASSAGES[against]))
    questions = np.asarray(embedder.embed_documents(QUESTIONS[language]))
    return int(sum(int(np.argmax(passages @ q)) == n for n, q in enumerate(questions)))


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.model_speed", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2 rounds instead of 5")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=0)
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    embedders: dict[LocalModel, Embedder] = {}
    figures: dict[str, object] = {"threads": args.threads, "rounds": rounds}
    for model in MODELS:
        start = time.perf_counter()
        embedders[model] = new_local_embedder(model, threads=args.threads)
        embedders[model].embed_documents(["warm up"])
        figures[f"{model.name}_load_s"] = round(time.perf_counter() - start, 2)
    for label, words in (("64", 53), ("256", 213)):
        texts = texts_of(words)
        best = dict.fromkeys(MODELS, 0.0)
        for _ in range(rounds):
            for model in MODELS:
                best[model] = max(best[model], rate(embedders[model], texts))
        for model in MODELS:
            figures[f"{model.name}_emb_s_{label}_tokens"] = round(best[model], 1)
        figures[f"ratio_{label}_tokens"] = round(best[MODELS[0]] / best[MODELS[1]], 2)
    for model in MODELS:
        for language in QUESTIONS:
            figures[f"{model.name}_{language}_own_top1_of_8"] = hits(
                embedders[model], language, language
            )
            figures[f"{model.name}_{language}_to_en_top1_of_8"] = hits(
                embedders[model], language, "en"
            )
    for key, value in figures.items():
        print(f"{key}: {value}")
    worst = min(float(figures["ratio_64_tokens"]), float(figures["ratio_256_tokens"]))  # type: ignore[arg-type]
    figures["verdict"] = verdict(worst, TARGET_RATIO)
    print(f"default / MiniLM, worse of the two lengths: {worst:.2f} ({figures['verdict']})")
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()
