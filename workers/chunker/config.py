"""What the chunker is asked for and what it returns."""

from __future__ import annotations

from dataclasses import dataclass

from core.chunking_limits import chunking_violations

DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", "。", ". ", " ")


@dataclass(frozen=True)
class ChunkerConfig:
    """Sizes are in code points (Python ``str`` length), like the offsets.

    ``separators`` are tried in order when a block is bigger than ``chunk_size``; any sequence
    is accepted and stored as a tuple. ValueError for values ``chunking_violations`` refuses.
    """

    chunk_size: int = 512
    chunk_overlap: int = 64
    separators: tuple[str, ...] = DEFAULT_SEPARATORS

    def __post_init__(self) -> None:
        # The API's rules (chunking_violations): what it accepted, the chunker takes.
        violations = chunking_violations(self.chunk_size, self.chunk_overlap, self.separators)
        if violations:
            raise ValueError("; ".join(f"{v.field} {v.description}" for v in violations))
        object.__setattr__(self, "separators", tuple(self.separators))


@dataclass(slots=True)
class TextChunk:
    """``content == text[start:end]`` of the text that was split, overlap included; a chunk
    continuing a cut table is its header rows + "\n" + ``text[start:end]``; one starting
    inside a cut code fence has the fence's opening line + "\n" in front, one ending inside
    it "\n" + the marker after.

    Not frozen: a frozen dataclass is four times slower to make, and the chunker makes one
    per chunk (a tenth of its time on a mixed corpus)."""

    index: int
    content: str
    start: int
    end: int
    # Heading breadcrumbs in force where the chunk starts, e.g. "# A > ## B".
    context_header: str


@dataclass(slots=True)
class ChildChunk(TextChunk):
    """A chunk of a parent chunk; offsets are still into the whole text."""

    parent_index: int
