"""Reciprocal-rank fusion of the dense and keyword rankings of a hybrid search.

A row's fused score is the sum over the rankings that hold it of 1 / (k + rank), rank from 1.
On top of RRF, the first hit of each ranking is always kept: a row ranked well by both sides
can outscore a row only one side ranks first (1/(k+2) twice beats 1/(k+1) once), which would
let an exact keyword match or the nearest vector drop out of a short result. The top hits that
RRF left out replace the lowest-scored other rows; with top_k = 1 only one fits, the one with
the higher fused score. The result is ordered by fused score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from storage.index.records import IndexHit


def fuse(rankings: Sequence[Sequence[IndexHit]], *, k: int, top_k: int) -> list[IndexHit]:
    scores: dict[str, float] = {}
    hits: dict[str, IndexHit] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (k + rank)
            hits.setdefault(hit.id, hit)

    def best_first(ids: Sequence[str]) -> list[str]:
        return sorted(ids, key=lambda i: (-scores[i], i))  # ties by id, so the order is stable

    chosen = best_first(list(scores))[:top_k]
    leaders = {ranking[0].id for ranking in rankings if ranking}
    for leader in best_first([i for i in leaders if i not in chosen]):
        others = [pos for pos, i in enumerate(chosen) if i not in leaders]
        if others:
            chosen[others[-1]] = leader
    return [replace(hits[i], score=scores[i]) for i in best_first(chosen)]
