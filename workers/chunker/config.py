"""What the chunker is asked for and what it returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", "。", ". ", " ")


@dataclass(frozen=True)
class ChunkerConfig:
    """Sizes are in code points (Python ``str`` length), like the offsets.

    ``separators`` are tried in order when a block is bigger than ``chunk_size``; any sequence
    is accepted and stored as a tuple.
    """

    chunk_size: int = 512
    chunk_overlap: int = 64
    separators: tuple[str, ...] = DEFAULT_SEPARATORS

    def __post_init__(self) -> None:
        if self.chunk_size <= 0:
            raise ValueError(f"chunk_size must be > 0, got {self.chunk_size}")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise ValueError(
                f"chunk_overlap must be >= 0 and < chunk_size ({self.chunk_size}), "
                f"got {self.chunk_overlap}"
            )
        separators: Sequence[str] = self.separators
        if isinstance(separators, str) or any(
            not isinstance(s, str) or not s for s in separators
        ):
            raise ValueError("separators must be a sequence of non-empty strings")
        object.__setattr__(self, "separators", tuple(separators))


@dataclass(frozen=True)
class TextChunk:
    """``content == text[start:end]`` of the text that was split, overlap included; a chunk
    continuing a cut table is its header rows + "\n" + ``text[start:end]``."""

    index: int
    content: str
    start: int
    end: int
    # Heading breadcrumbs in force where the chunk starts, e.g. "# A > ## B".
    context_header: str


@dataclass(frozen=True)
class ChildChunk(TextChunk):
    """A chunk of a parent chunk; offsets are still into the whole text."""

    parent_index: int
