"""Relative-score fusion that never drops a ranking's first hit (when two fit)."""

from __future__ import annotations

import pytest

from storage.index.fusion import DENSE_WEIGHT, fuse
from storage.index.records import IndexHit


def hit(row_id: str, score: float) -> IndexHit:
    return IndexHit(row_id, row_id, "k", "kb", f"content of {row_id}", score)


def ranking(*rows: tuple[str, float]) -> list[IndexHit]:
    return [hit(i, s) for i, s in rows]


def test_scores_are_each_sides_scaled_score_weighted() -> None:
    dense = ranking(("a", 0.9), ("b", 0.7), ("c", 0.5))  # min-max: 1, 0.5, 0
    keyword = ranking(("b", 12.0), ("c", 4.0))  # of the best: 1, 1/3

    fused = fuse(dense, keyword, top_k=3, dense_weight=0.3)

    assert [h.id for h in fused] == ["b", "a", "c"]
    assert [h.score for h in fused] == pytest.approx([0.3 * 0.5 + 0.7, 0.3, 0.7 / 3])
    assert fused[1].content == "content of a"


def test_a_clear_keyword_lead_outweighs_dense_look_alikes() -> None:
    """The right row is keyword's close second and fourth of five on the dense side. By ranks
    (1 / (60 + rank) summed) x and the look-alike, ranked high by both, would come first and
    second; by scaled scores keyword's lead counts."""
    dense = ranking(("look-alike", 0.62), ("x", 0.61), ("y", 0.60), ("right", 0.55), ("w", 0.4))
    keyword = ranking(("exact", 18.0), ("right", 17.0), ("x", 6.0), ("y", 5.5), ("look-alike", 5.0))

    fused = fuse(dense, keyword, top_k=5, dense_weight=0.4)

    assert [h.id for h in fused] == ["right", "exact", "x", "look-alike", "y"]


def test_each_rankings_first_hit_is_kept_over_rows_both_rank_lower() -> None:
    dense = ranking(("d1", 0.9), ("x", 0.89), ("y", 0.88), ("z", 0.1))
    keyword = ranking(("k1", 10.0), ("x", 9.9), ("y", 9.8), ("z", 1.0))

    # x and y both score about 0.98 fused; d1 only DENSE_WEIGHT, k1 only 1 - DENSE_WEIGHT.
    assert DENSE_WEIGHT < 0.5
    assert {h.id for h in fuse(dense, keyword, top_k=2)} == {"d1", "k1"}
    assert [h.id for h in fuse(dense, keyword, top_k=3)] == ["x", "k1", "d1"]


def test_with_one_place_the_first_hit_with_the_higher_fused_score_wins() -> None:
    dense = ranking(("d1", 0.9), ("x", 0.8), ("k1", 0.1))
    keyword = ranking(("k1", 5.0), ("x", 4.9), ("d1", 0.5))  # x has the best fused score

    assert [h.id for h in fuse(dense, keyword, top_k=1, dense_weight=0.3)] == ["k1"]
    assert [h.id for h in fuse(dense, keyword, top_k=1, dense_weight=0.7)] == ["d1"]


def test_equal_scores_all_scale_to_one() -> None:
    fused = fuse(ranking(("a", 0.5), ("b", 0.5)), [], top_k=2, dense_weight=0.3)

    assert [h.score for h in fused] == pytest.approx([0.3, 0.3])


def test_an_empty_ranking_leaves_the_other_as_it_was() -> None:
    keyword = ranking(("a", 3.0), ("b", 2.0), ("c", 1.0))
    assert [h.id for h in fuse([], keyword, top_k=2)] == ["a", "b"]
    assert fuse([], [], top_k=5) == []
