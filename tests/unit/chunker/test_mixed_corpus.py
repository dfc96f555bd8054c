"""The chunker's promises on the benchmark's mixed corpus (English, Russian and Chinese prose,
lists, tables with long cells, code fences, headings) at the benchmark's 512/80: no chunk is
longer than the chunk size unless it is the one unit the chunker never cuts (one table row
under the table's header and delimiter rows), every chunk's content is its slice of the text
(after the repeated header of a cut table, or between the opening and closing lines of a cut
fence), a fence stays whole when it fits and is otherwise cut between lines into pieces that
are each a fence in the same language, and the heading breadcrumbs are those in force where
the chunk starts.

The fences, tables and headings are found here with plain patterns of the generator's own
syntax, not with the chunker's scanner.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache

import pytest

from bench.mixed_markdown import mixed_document
from workers.chunker import ChunkerConfig, TextChunk, split_markdown

CONFIG = ChunkerConfig(chunk_size=512, chunk_overlap=80)
SEEDS = range(12)
# The generator's fences: a marker line, code lines (none starting with a marker), the marker.
_FENCE = re.compile(r"^(`{3,}|~{3,})[a-z]*\n.*?\n\1$", re.M | re.S)
_TABLE = re.compile(r"^\|.*\|$(?:\n^\|.*\|$)+", re.M)
_HEADING = re.compile(r"^(#{1,4}) .*$", re.M)


@dataclass(frozen=True)
class _Document:
    text: str
    fences: list[tuple[int, int]]
    tables: list[tuple[int, int]]
    headings: list[tuple[int, int, str]]

    def table_at(self, offset: int) -> tuple[int, int] | None:
        return next(((s, e) for s, e in self.tables if s <= offset < e), None)

    def fence_inside(self, offset: int) -> tuple[int, int] | None:
        """The fence ``offset`` lies in after its first character."""
        return next(((s, e) for s, e in self.fences if s < offset < e), None)

    def opening_line(self, fence: tuple[int, int]) -> str:
        return self.text[fence[0] : self.text.index("\n", fence[0]) + 1]

    def closing_line(self, fence: tuple[int, int]) -> str:
        """The closing line a chunk ending inside ``fence`` adds, after a line break."""
        return "\n" + self.text[self.text.rindex("\n", 0, fence[1]) + 1 : fence[1]]

    def header_of(self, table: tuple[int, int]) -> str:
        """The table's header and delimiter rows with the line break after them."""
        return "\n".join(self.text[table[0] : table[1]].split("\n")[:2]) + "\n"

    def breadcrumbs(self, offset: int) -> str:
        stack: list[tuple[int, str]] = []
        for start, level, label in self.headings:
            if start > offset:
                break
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, label))
        return " > ".join(label for _, label in stack)


@cache
def _document(seed: int) -> tuple[_Document, list[TextChunk]]:
    text = mixed_document(seed, 30_000)
    fences = [m.span() for m in _FENCE.finditer(text)]

    def outside(start: int) -> bool:
        return not any(s <= start < e for s, e in fences)

    tables = [m.span() for m in _TABLE.finditer(text) if outside(m.start())]
    headings = [
        (m.start(), len(m.group(1)), m.group())
        for m in _HEADING.finditer(text)
        if outside(m.start())
    ]
    return _Document(text, fences, tables, headings), split_markdown(text, CONFIG)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chunk_over_the_size_is_one_table_row_under_its_header(seed: int) -> None:
    document, chunks = _document(seed)
    for chunk in chunks:
        if len(chunk.content) <= CONFIG.chunk_size:
            continue
        table = document.table_at(chunk.start)
        assert table is not None and chunk.end <= table[1], f"chunk {chunk.index} is too big"
        header = document.header_of(table)
        rows = chunk.content.removeprefix(header).split("\n")
        assert len(rows) == 1, f"chunk {chunk.index} has {len(rows)} rows, more than fit"


def test_the_corpus_has_oversize_rows_cut_tables_and_cut_fences() -> None:
    """The rules here are not vacuous on this corpus: it has fences bigger than a chunk (of
    every marker), and they are cut."""
    rows = continuations = cut_fences = 0
    markers = set()
    for seed in SEEDS:
        document, chunks = _document(seed)
        for chunk in chunks:
            table = document.table_at(chunk.start)
            continued = table is not None and chunk.content != chunk_slice(document, chunk)
            continuations += continued
            rows += len(chunk.content) > CONFIG.chunk_size
            fence = document.fence_inside(chunk.start)
            if fence is not None:
                cut_fences += 1
                markers.add(document.closing_line(fence))
    assert rows > 5 and continuations > 20 and cut_fences > 20
    assert markers == {"\n```", "\n~~~", "\n````"}


def chunk_slice(document: _Document, chunk: TextChunk) -> str:
    return document.text[chunk.start : chunk.end]


@pytest.mark.parametrize("seed", SEEDS)
def test_content_is_the_slice_after_a_cut_tables_repeated_header(seed: int) -> None:
    document, chunks = _document(seed)
    for chunk in chunks:
        body = chunk_slice(document, chunk)
        ends_in = document.fence_inside(chunk.end)
        if ends_in is not None:
            body += document.closing_line(ends_in)
        starts_in = document.fence_inside(chunk.start)
        if starts_in is not None:
            assert chunk.content == document.opening_line(starts_in) + body
            continue
        if chunk.content == body:
            continue
        table = document.table_at(chunk.start)
        assert table is not None, f"chunk {chunk.index} is not its slice"
        # A continuation starts at a body row, not in the header, and repeats the header.
        assert chunk.start > table[0] and body.startswith("|")
        assert chunk.content == document.header_of(table) + body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_fence_that_fits_stays_whole_and_a_bigger_one_is_cut_between_lines(seed: int) -> None:
    document, chunks = _document(seed)
    assert document.fences
    text = document.text
    for start, end in document.fences:
        inside = [c for c in chunks if start < c.start < end or start < c.end < end]
        if end - start <= CONFIG.chunk_size:
            assert not inside and any(c.start <= start and end <= c.end for c in chunks)
            continue
        pieces = [c for c in chunks if c.start < end and start < c.end]
        assert len(pieces) > 1
        # Each piece opens the fence in its language and closes it; none overlaps the one
        # before, and the line break between two is all they leave out.
        for piece in pieces:
            if piece.start > start:
                assert piece.content.startswith(document.opening_line((start, end)))
            if piece.end < end:
                assert piece.content.endswith(document.closing_line((start, end)))
        for previous, piece in itertools.pairwise(pieces):
            assert text[previous.end : piece.start] in ("", "\n")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cut_table_repeats_its_header_in_every_continuation(seed: int) -> None:
    document, chunks = _document(seed)
    for table in document.tables:
        starting_inside = [c for c in chunks if table[0] < c.start < table[1]]
        for chunk in starting_inside:
            assert chunk.content.startswith(document.header_of(table)), f"chunk {chunk.index}"


@pytest.mark.parametrize("seed", SEEDS)
def test_breadcrumbs_are_the_headings_in_force_at_the_chunk_start(seed: int) -> None:
    document, chunks = _document(seed)
    for chunk in chunks:
        assert chunk.context_header == document.breadcrumbs(chunk.start)
