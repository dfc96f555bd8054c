"""Reciprocal-rank fusion that never drops a ranking's first hit (when two fit)."""

from __future__ import annotations

import pytest

from storage.index.fusion import fuse
from storage.index.records import IndexHit


def hit(row_id: str, score: float = 1.0) -> IndexHit:
    return IndexHit(row_id, row_id, "k", "kb", f"content of {row_id}", score)


def ranking(*row_ids: str) -> list[IndexHit]:
    return [hit(i) for i in row_ids]


def test_scores_are_summed_reciprocal_ranks() -> None:
    fused = fuse([ranking("a", "b"), ranking("b", "c")], k=60, top_k=3)

    assert [h.id for h in fused] == ["b", "a", "c"]
    assert [h.score for h in fused] == pytest.approx([1 / 62 + 1 / 61, 1 / 61, 1 / 62])
    assert fused[1].content == "content of a"


def test_each_rankings_first_hit_is_kept_over_rows_both_rank_lower() -> None:
    dense = ranking("d1", "x", "y")
    keyword = ranking("k1", "x", "y")

    # Plain RRF would answer x, y: 2/62 and 2/63 both beat 1/61.
    assert {h.id for h in fuse([dense, keyword], k=60, top_k=2)} == {"d1", "k1"}
    assert [h.id for h in fuse([dense, keyword], k=60, top_k=3)] == ["x", "d1", "k1"]


def test_with_one_place_the_first_hit_with_the_higher_fused_score_wins() -> None:
    dense = ranking("d1", "x", "y", "k1")
    keyword = ranking("k1", "x")  # x: 2/62 beats k1: 1/61 + 1/64, which beats d1: 1/61

    assert [h.id for h in fuse([dense, keyword], k=60, top_k=1)] == ["k1"]


def test_an_empty_ranking_leaves_the_other_as_it_was() -> None:
    assert [h.id for h in fuse([ranking("a", "b", "c"), []], k=60, top_k=2)] == ["a", "b"]
    assert fuse([[], []], k=60, top_k=5) == []
