"""The chunking rules the API and the chunker share (core.chunking_limits)."""

from __future__ import annotations

import pytest

from core.chunking_limits import (
    MAX_CHUNK_SIZE,
    MAX_SEPARATORS,
    chunking_violations,
    parent_child_sizes,
)
from workers.chunker import ChunkerConfig


def _fields(*args: object, **kwargs: object) -> list[str]:
    return [v.field for v in chunking_violations(*args, **kwargs)]  # type: ignore[arg-type]


def test_usable_values_break_no_rule() -> None:
    assert _fields(512, 64) == []
    assert _fields(1, 0) == []
    assert _fields(MAX_CHUNK_SIZE, MAX_CHUNK_SIZE - 1, ("\n", ";")) == []
    assert (
        _fields(512, 64, enable_parent_child=True, parent_chunk_size=2048, child_chunk_size=256)
        == []
    )


@pytest.mark.parametrize(
    ("size", "overlap", "fields"),
    [
        (1, 64, ["chunk_overlap"]),  # a tiny size under an inherited overlap
        (0, 0, ["chunk_size"]),
        (-(2**31), 0, ["chunk_size"]),
        (MAX_CHUNK_SIZE + 1, 0, ["chunk_size"]),
        (100, 100, ["chunk_overlap"]),
        (100, -1, ["chunk_overlap"]),
        (-5, -1, ["chunk_size", "chunk_overlap"]),
    ],
)
def test_sizes(size: int, overlap: int, fields: list[str]) -> None:
    assert _fields(size, overlap) == fields


def test_separators_are_non_empty_short_strings_and_few() -> None:
    assert _fields(512, 64, [""]) == ["separators[0]"]
    assert _fields(512, 64, ["\n", "", "x" * 65]) == ["separators[1]", "separators[2]"]
    assert _fields(512, 64, [";"] * (MAX_SEPARATORS + 1)) == ["separators"]
    assert _fields(512, 64, "\n") == ["separators"]
    assert _fields(512, 64, [3]) == ["separators[0]"]


def test_parent_and_child_sizes() -> None:
    on = {"enable_parent_child": True}
    assert _fields(512, 64, parent_chunk_size=-1) == ["parent_chunk_size"]
    assert _fields(512, 64, child_chunk_size=MAX_CHUNK_SIZE + 1) == ["child_chunk_size"]
    assert _fields(512, 64, parent_chunk_size=200, child_chunk_size=200, **on) == [
        "child_chunk_size"
    ]
    # Children are cut with the overlap: one no larger than it cannot be split.
    assert _fields(512, 64, parent_chunk_size=2048, child_chunk_size=64, **on) == [
        "child_chunk_size"
    ]
    # Off, the sizes are only range-checked.
    assert _fields(512, 64, parent_chunk_size=200, child_chunk_size=300) == []
    # Unset sizes take their defaults, and the rules hold for what is used: a parent set
    # below chunk_size (the child's default) is refused, one unset is four children long.
    assert _fields(512, 64, parent_chunk_size=300, **on) == ["child_chunk_size"]
    assert _fields(512, 64, child_chunk_size=MAX_CHUNK_SIZE, **on) == ["child_chunk_size"]
    assert _fields(512, 64, **on) == []


def test_unset_parent_and_child_sizes_follow_the_chunk_size() -> None:
    assert parent_child_sizes(512, 0, 0) == (2048, 512)
    assert parent_child_sizes(512, 0, 128) == (512, 128)
    assert parent_child_sizes(512, 1000, 0) == (1000, 512)
    assert parent_child_sizes(8192, 0, 0) == (MAX_CHUNK_SIZE, 8192)


def test_the_chunker_refuses_what_the_rules_refuse() -> None:
    for size, overlap, separators in ((1, 64, ()), (0, 0, ()), (512, 64, ("",))):
        assert chunking_violations(size, overlap, separators)
        with pytest.raises(ValueError):
            ChunkerConfig(size, overlap, separators or ("\n",))
