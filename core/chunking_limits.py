"""The chunking rules: one function that says what is wrong with a chunking configuration.

The API runs it on a knowledge base's config and on every knowledge's effective config (the
knowledge base's merged with the upload's overrides) before anything is queued, and the
chunker runs it on what it is given (``ChunkerConfig``), so the two can never disagree:
whatever the API accepts, the chunker splits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Characters. Larger chunks dilute what an embedding can say about them (embedding models
# read a few thousand tokens at most) and make every chunk message heavy.
MAX_CHUNK_SIZE = 16_384
MAX_SEPARATORS = 32
MAX_SEPARATOR_CHARS = 64


@dataclass(frozen=True)
class ChunkingViolation:
    """``field``: the ChunkingConfig field at fault ("chunk_overlap", "separators[2]")."""

    field: str
    description: str


def chunking_violations(
    chunk_size: int,
    chunk_overlap: int,
    separators: Sequence[object] = (),
    *,
    enable_parent_child: bool = False,
    parent_chunk_size: int = 0,
    child_chunk_size: int = 0,
) -> list[ChunkingViolation]:
    """Every rule the values break, in field order; empty when the chunker can use them.

    Sizes are final values (the server defaults already applied): ``chunk_size`` in
    [1, MAX_CHUNK_SIZE], ``chunk_overlap`` in [0, chunk_size). ``separators``: at most
    MAX_SEPARATORS non-empty strings of at most MAX_SEPARATOR_CHARS (empty = the defaults).
    Parent/child sizes: 0 (unset) or in [1, MAX_CHUNK_SIZE]; with parent/child on, the sizes
    it uses (``parent_child_sizes``) give a child smaller than its parent and larger than
    the overlap.
    """
    found: list[ChunkingViolation] = []
    size_ok = 1 <= chunk_size <= MAX_CHUNK_SIZE
    if not size_ok:
        found.append(
            ChunkingViolation(
                "chunk_size", f"must be between 1 and {MAX_CHUNK_SIZE}, got {chunk_size}"
            )
        )
    if chunk_overlap < 0 or (size_ok and chunk_overlap >= chunk_size):
        found.append(
            ChunkingViolation(
                "chunk_overlap",
                f"must be >= 0 and smaller than chunk_size ({chunk_size}), got {chunk_overlap}",
            )
        )
    found += _separator_violations(separators)
    sizes_ok = size_ok
    for name, value in (
        ("parent_chunk_size", parent_chunk_size),
        ("child_chunk_size", child_chunk_size),
    ):
        if not 0 <= value <= MAX_CHUNK_SIZE:
            sizes_ok = False
            found.append(
                ChunkingViolation(
                    name, f"must be 0 (unset) or between 1 and {MAX_CHUNK_SIZE}, got {value}"
                )
            )
    if enable_parent_child and sizes_ok:
        parent, child = parent_child_sizes(chunk_size, parent_chunk_size, child_chunk_size)
        if parent <= child:
            found.append(
                ChunkingViolation(
                    "child_chunk_size",
                    f"must be smaller than parent_chunk_size ({parent}), got {child}",
                )
            )
        if chunk_overlap >= 0 and child <= chunk_overlap:
            found.append(
                ChunkingViolation(
                    "child_chunk_size",
                    f"must be larger than chunk_overlap ({chunk_overlap}), got {child}",
                )
            )
    return found


def parent_child_sizes(
    chunk_size: int, parent_chunk_size: int, child_chunk_size: int
) -> tuple[int, int]:
    """The parent and child sizes parent/child chunking uses, 0 meaning unset: a child is
    ``chunk_size`` long unless given (it is what is embedded and searched), a parent four
    children long (at most MAX_CHUNK_SIZE) unless given."""
    child = child_chunk_size or chunk_size
    return parent_chunk_size or min(MAX_CHUNK_SIZE, 4 * child), child


def _separator_violations(separators: Sequence[object]) -> list[ChunkingViolation]:
    if isinstance(separators, str):
        return [ChunkingViolation("separators", "must be a list of strings, not one string")]
    found: list[ChunkingViolation] = []
    if len(separators) > MAX_SEPARATORS:
        found.append(
            ChunkingViolation("separators", f"at most {MAX_SEPARATORS} separators are allowed")
        )
    for i, separator in enumerate(separators[:MAX_SEPARATORS]):
        if not isinstance(separator, str) or not separator:
            found.append(ChunkingViolation(f"separators[{i}]", "must be a non-empty string"))
        elif len(separator) > MAX_SEPARATOR_CHARS:
            found.append(
                ChunkingViolation(
                    f"separators[{i}]", f"is longer than {MAX_SEPARATOR_CHARS} characters"
                )
            )
    return found
