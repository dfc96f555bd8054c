"""Row counts by sampling levels: exact up to DEPTH rows, estimated beyond, bounded hits."""

from __future__ import annotations

import math
from collections.abc import Sequence

from storage.index.row_vectors import sparse_vector
from storage.index.term_counting import DEPTH, RATE, count_rows


class Rows:
    """The rows' real sparse vectors, searched as Milvus would: rows with the dimension."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.vectors = [sparse_vector(f"row-{i}", text) for i, text in enumerate(texts)]
        self.hits = 0

    def search(self, queries: Sequence[dict[int, float]], limit: int) -> list[int]:
        found = []
        for query in queries:
            (dim,) = query
            n = min(limit, sum(1 for v in self.vectors if dim in v))
            self.hits += n
            found.append(n)
        return found


def test_small_counts_are_exact() -> None:
    rows = Rows(["pump valve"] * 7 + ["valve"] * 20 + ["gate"] * 3)

    assert count_rows(rows.search, ["pump", "valv", "gate", "absent"]) == (
        30,
        {"pump": 7, "valv": 27, "gate": 3, "absent": 0},
    )


def test_large_counts_are_estimated_closely_with_bounded_hits() -> None:
    texts = [f"common word{i % 7}" + (" half" if i % 2 else "") for i in range(6_000)]
    rows = Rows(texts)

    total, counts = count_rows(rows.search, ["common", "half", "word3"])

    assert abs(math.log(total / 6_000)) < math.log(2)
    assert abs(math.log(counts["half"] / 3_000)) < math.log(2)
    assert abs(math.log(counts["word3"] / (6_000 / 7))) < math.log(2)
    assert counts["common"] == total
    assert rows.hits <= 4 * 4 * DEPTH  # four names, four levels, at most DEPTH hits each


def test_a_count_is_never_below_what_a_full_level_proved() -> None:
    rows = Rows(["rare"] * (DEPTH + 1) + ["other"] * 10)

    _, counts = count_rows(rows.search, ["rare"])

    assert counts["rare"] >= DEPTH
    assert counts["rare"] <= (DEPTH + 1) * RATE
