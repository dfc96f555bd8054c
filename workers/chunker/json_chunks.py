"""A fenced ``json`` block bigger than a chunk, split along its structure.

The docreader writes a JSON file as one fenced block, which the chunker otherwise keeps whole
however big. Here such a block is cut between the members of its objects and arrays,
recursively: consecutive members are packed into pieces of at most ``chunk_size``; a member
too big alone is split the same way inside; a single string or number too big alone is cut
as text (``split_span``). Every piece is a slice of the text (offsets stay exact; the first
piece holds the opening fence line, the last the closing one) and carries its JSON path:
``$.orders[3].customer`` for one member, ``$.orders[3:6]`` for a run of array items, the
object's own path for a run of its keys. The chunker shows the path as the chunk's
breadcrumb.

Hand-written rather than a JSON splitter library (langchain's ``RecursiveJsonSplitter``
re-serializes the parsed values): the chunks must be slices of the text with their offsets.
Only the containers being cut are scanned member by member; the rest is skipped by matching
brackets outside strings. A block that is not one JSON value is left to the caller (None).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from workers.chunker.recursive import split_span

# Deeper containers are cut as text: the path would not help, and recursion stays bounded.
MAX_DEPTH = 64
_JSON_FENCE = re.compile(r"[ \t]*(?:`{3,}|~{3,})[ \t]*json[ \t]*$", re.IGNORECASE)
_WHITESPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
# NaN and Infinity too: Python's json reads and writes them, so the docreader may write them.
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|NaN|-?Infinity")
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class JsonPiece:
    start: int
    end: int
    # Path segments: ("$", ".orders", "[3]"); joined, the breadcrumb.
    path: tuple[str, ...]


class _NotJson(Exception):
    pass


@dataclass(frozen=True)
class _Member:
    start: int  # the key of an object member, the value of an array item
    value_start: int
    value_end: int
    segment: str


@dataclass(frozen=True)
class JsonFence:
    """A fenced json block of the whole text: its span and where its one value lies."""

    start: int
    end: int
    value_start: int
    value_end: int


def json_fence(text: str, start: int, end: int) -> JsonFence | None:
    """The fence at ``text[start:end]`` when its info string is ``json`` and its body is one
    JSON object or array (what is worth cutting); None otherwise."""
    line_end = text.find("\n", start, end)
    if line_end < 0 or not _JSON_FENCE.fullmatch(text, start, line_end):
        return None
    value_start = _WHITESPACE.match(text, line_end + 1, end).end()  # type: ignore[union-attr]
    if value_start >= end or text[value_start] not in "{[":
        return None
    try:
        value_end = _skip_value(text, value_start, end)
    except _NotJson:
        return None
    return JsonFence(start, end, value_start, value_end)


def json_path(segments: Sequence[str]) -> str:
    return "".join(segments)


def common_path(paths: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """The deepest path every one of ``paths`` lies under (an array run counts as its
    array)."""
    if not paths:
        return ()
    shortest = min(len(p) for p in paths)
    depth = 0
    while depth < shortest and len({p[depth] for p in paths}) == 1:
        depth += 1
    return paths[0][:depth]


class JsonSplitter:
    """Splits one json fence, at any size and over any window of it. The members of each
    container are scanned once and kept, so the many windows of a parent-child split (one
    per parent) cost a bisection each, not a scan of the whole fence."""

    def __init__(self, text: str, fence: JsonFence) -> None:
        self._text = text
        self._fence = fence
        self._size = 0
        self._separators: tuple[str, ...] = ()
        # A container's start → its members and their extents' starts and ends.
        self._scanned: dict[int, tuple[list[_Member], list[int], list[int]]] = {}

    def split(
        self, size: int, separators: tuple[str, ...], window: tuple[int, int] | None = None
    ) -> list[JsonPiece]:
        """Pieces of the fence (or of ``window``, a range of it, e.g. a parent chunk's) of
        at most ``size`` code points (the pieces of a leaf cut as text are capped the same)."""
        fence = self._fence
        lo, hi = window or (fence.start, fence.end)
        self._size, self._separators = size, separators
        try:
            return self._split(fence.value_start, fence.value_end, lo, hi, ("$",), 0)
        except _NotJson:
            # A member the fence check skipped over is malformed: cut that range as text.
            return self._as_text(lo, hi, ("$",))

    def _split(
        self,
        value_start: int,
        value_end: int,
        lo: int,
        hi: int,
        path: tuple[str, ...],
        depth: int,
    ) -> list[JsonPiece]:
        """Pieces covering ``[lo, hi)``, the value's range clipped to the window, with the
        text around the value that belongs to it (its key, its container's brackets)."""
        if hi - lo <= self._size:
            return [JsonPiece(lo, hi, self._path_of(value_start, value_end, lo, hi, path, depth))]
        members = self._members_in(value_start, value_end, lo, hi, depth)
        if not members:
            return self._as_text(lo, hi, path)
        pieces: list[JsonPiece] = []
        run: list[_Member] = []
        run_start = run_end = lo
        for position, member in enumerate(members):
            m_lo = lo if position == 0 else max(member.start, lo)
            m_hi = hi if position == len(members) - 1 else min(member.value_end, hi)
            if run and m_hi - run_start <= self._size:
                run.append(member)
                run_end = m_hi
                continue
            if run:
                pieces.append(self._run_piece(run, run_start, run_end, path))
                run = []
            if m_hi - m_lo <= self._size:
                run, run_start, run_end = [member], m_lo, m_hi
            else:
                child = (*path, member.segment)
                pieces.extend(
                    self._split(member.value_start, member.value_end, m_lo, m_hi, child, depth + 1)
                )
        if run:
            pieces.append(self._run_piece(run, run_start, run_end, path))
        return pieces

    def _path_of(
        self,
        value_start: int,
        value_end: int,
        lo: int,
        hi: int,
        path: tuple[str, ...],
        depth: int,
    ) -> tuple[str, ...]:
        """The path of the range ``[lo, hi)`` of the value (a window from a parent chunk):
        down through the one member it lies in, to the run of members it covers."""
        while True:
            members = self._members_in(value_start, value_end, lo, hi, depth)
            if len(members) != 1:
                return self._run_piece(members, lo, hi, path).path if members else path
            member = members[0]
            path = (*path, member.segment)
            value_start, value_end, depth = member.value_start, member.value_end, depth + 1

    def _members_in(
        self, value_start: int, value_end: int, lo: int, hi: int, depth: int
    ) -> list[_Member]:
        """The members of a container value overlapping ``[lo, hi)``; none for a scalar or
        past ``MAX_DEPTH``."""
        if depth >= MAX_DEPTH or self._text[value_start] not in "{[":
            return []
        if value_start not in self._scanned:
            members = self._members(value_start, value_end)
            starts = [m.start for m in members]
            ends = [m.value_end for m in members]
            self._scanned[value_start] = (members, starts, ends)
        members, starts, ends = self._scanned[value_start]
        # Members overlap [lo, hi) when they start before hi and end after lo.
        return members[bisect.bisect_right(ends, lo) : bisect.bisect_left(starts, hi)]

    def _run_piece(
        self, run: list[_Member], start: int, end: int, path: tuple[str, ...]
    ) -> JsonPiece:
        if len(run) == 1:
            return JsonPiece(start, end, (*path, run[0].segment))
        if run[0].segment.startswith("[") and run[0].segment[1:-1].isdigit():
            first, last = int(run[0].segment[1:-1]), int(run[-1].segment[1:-1])
            return JsonPiece(start, end, (*path, f"[{first}:{last + 1}]"))
        return JsonPiece(start, end, path)

    def _as_text(self, lo: int, hi: int, path: tuple[str, ...]) -> list[JsonPiece]:
        spans = split_span(self._text, lo, hi, self._size, self._separators)
        return [JsonPiece(start, end, path) for start, end in spans]

    def _members(self, start: int, end: int) -> list[_Member]:
        text = self._text
        is_object = text[start] == "{"
        closer = "}" if is_object else "]"
        members: list[_Member] = []
        pos = self._space(start + 1, end)
        if pos < end and text[pos] == closer:
            return members
        while True:
            member_start = pos
            if is_object:
                key = _STRING.match(text, pos, end)
                if key is None:
                    raise _NotJson
                segment = _key_segment(key.group())
                pos = self._space(key.end(), end)
                if pos >= end or text[pos] != ":":
                    raise _NotJson
                pos = self._space(pos + 1, end)
            else:
                segment = f"[{len(members)}]"
            value_end = _skip_value(text, pos, end)
            members.append(_Member(member_start, pos, value_end, segment))
            pos = self._space(value_end, end)
            if pos < end and text[pos] == ",":
                pos = self._space(pos + 1, end)
                continue
            if pos < end and text[pos] == closer:
                return members
            raise _NotJson

    def _space(self, pos: int, end: int) -> int:
        return _WHITESPACE.match(self._text, pos, end).end()  # type: ignore[union-attr]


def _skip_value(text: str, pos: int, end: int) -> int:
    """Where the JSON value starting at ``pos`` ends; containers by matching brackets outside
    strings (their members are checked only when they are cut)."""
    if pos >= end:
        raise _NotJson
    char = text[pos]
    if char == '"':
        match = _STRING.match(text, pos, end)
        if match is None:
            raise _NotJson
        return match.end()
    if char in "{[":
        depth = 0
        for token in _STRING_OR_BRACKET.finditer(text, pos, end):
            bracket = token.group()
            if bracket in "{[":
                depth += 1
            elif bracket in "}]":
                depth -= 1
                if depth == 0:
                    return token.end()
        raise _NotJson
    scalar = _SCALAR.match(text, pos, end)
    if scalar is None:
        raise _NotJson
    return scalar.end()


def _key_segment(quoted: str) -> str:
    try:
        key = json.loads(quoted)
    except ValueError as err:  # a bad escape, a raw control character
        raise _NotJson from err
    if _IDENTIFIER.fullmatch(key):
        return f".{key}"
    return f"[{json.dumps(key, ensure_ascii=False)}]"
