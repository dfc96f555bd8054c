"""Relative-score fusion of the dense and keyword rankings of a hybrid search.

Each side's scores are scaled to 0..1 over its own candidates: BM25 relative to the best row
(score / best: BM25 is 0 for no match, so a row matching half as well keeps half), cosine by
min-max (its best candidate 1, its worst 0: cosine has no "no match" point, and the spread
between candidates is what tells them apart). A row's fused score is

    DENSE_WEIGHT * dense_scaled + (1 - DENSE_WEIGHT) * keyword_scaled

(a side that does not hold the row adds 0). Scores, not ranks, are fused because the keyword
side's confidence is in its score gaps: a rare name matched gives its row a clear lead over
look-alike rows, which reciprocal-rank fusion flattened into "1st vs 2nd" and let the dense
side's look-alikes outvote (bench/RESULTS.md (k)). The dense weight is low because BM25 over
our terms finds far more of the recall corpus's facts than the local multilingual model does
(98% against 44% in the top 5): on two draws of that corpus, weights 0.1-0.4 lost none of
the facts keyword search alone puts in the top 5 (reciprocal-rank fusion lost three to five),
and the first place went to the right chunk for 91% and 88% of the facts at 0.2, against 72%
at 0.4 (keyword alone: 93% and 92%). Dense still breaks keyword's near-ties and brings in
rows with no query term (its first hit is always kept, below).

On top, the first hit of each ranking is always kept: a row both sides rank well can outscore
a row only one side ranks first, which would let an exact keyword match or the nearest vector
drop out of a short result. The first hits left out replace the lowest-scored other rows; with
top_k = 1 only one fits, the one with the higher fused score. The result is ordered by fused
score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from storage.index.records import IndexHit

DENSE_WEIGHT = 0.2


def fuse(
    dense: Sequence[IndexHit],
    keyword: Sequence[IndexHit],
    *,
    top_k: int,
    dense_weight: float = DENSE_WEIGHT,
) -> list[IndexHit]:
    scores: dict[str, float] = {}
    hits: dict[str, IndexHit] = {}
    sides = (
        (dense_weight, dense, _min_max(dense)),
        (1.0 - dense_weight, keyword, _of_best(keyword)),
    )
    for weight, ranking, scaled_scores in sides:
        for hit, scaled in zip(ranking, scaled_scores, strict=True):
            scores[hit.id] = scores.get(hit.id, 0.0) + weight * scaled
            hits.setdefault(hit.id, hit)

    def best_first(ids: Sequence[str]) -> list[str]:
        return sorted(ids, key=lambda i: (-scores[i], i))  # ties by id, so the order is stable

    chosen = best_first(list(scores))[:top_k]
    leaders = {ranking[0].id for ranking in (dense, keyword) if ranking}
    for leader in best_first([i for i in leaders if i not in chosen]):
        others = [pos for pos, i in enumerate(chosen) if i not in leaders]
        if others:
            chosen[others[-1]] = leader
    return [replace(hits[i], score=scores[i]) for i in best_first(chosen)]


def _min_max(ranking: Sequence[IndexHit]) -> list[float]:
    if not ranking:
        return []
    low = min(hit.score for hit in ranking)
    spread = max(hit.score for hit in ranking) - low
    if spread <= 0.0:
        return [1.0] * len(ranking)
    return [(hit.score - low) / spread for hit in ranking]


def _of_best(ranking: Sequence[IndexHit]) -> list[float]:
    best = max((hit.score for hit in ranking), default=0.0)
    if best <= 0.0:
        return [1.0] * len(ranking)
    return [hit.score / best for hit in ranking]
