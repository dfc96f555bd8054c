"""Random Markdown documents (fixed seeds) that record where their tables (row by row), fences
and headings are, so tests can check the chunker against what was generated rather than
against itself."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

ENGLISH = [
    "alpha",
    "river",
    "stone",
    "window",
    "garden",
    "quiet",
    "engine",
    "paper",
    "light",
    "number",
    "yellow",
    "market",
    "silver",
    "planet",
    "orange",
    "bridge",
]
RUSSIAN = [
    "привет",
    "мир",
    "дорога",
    "книга",
    "солнце",
    "вода",
    "ветер",
    "город",
    "время",
    "ёлка",
    "щука",
    "объём",
]
EMOJI = ["😀", "🎉", "🚀", "👍🏽", "🇷🇺", "👨‍👩‍👧"]
CHINESE = "你好世界这是测试中文文本分块检查偏移量正确"


@dataclass(frozen=True)
class GeneratedTable:
    """Where a generated table and its rows are; row spans exclude the line breaks."""

    start: int
    end: int
    # The header and delimiter rows, joined by a line break, as a continuation repeats them.
    header: str
    header_end: int
    rows: tuple[tuple[int, int], ...]

    def continued_at(self, offset: int) -> bool:
        """Whether a chunk starting at ``offset`` continues this table past its header."""
        return self.header_end < offset < self.end


@dataclass
class GeneratedDocument:
    text: str = ""
    tables: list[GeneratedTable] = field(default_factory=list)
    # (start, end) of every fenced code block.
    fences: list[tuple[int, int]] = field(default_factory=list)
    # (start, level, label) of every heading.
    headings: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def atomic(self) -> list[tuple[int, int]]:
        """(start, end) of every table and fenced code block, in document order."""
        return sorted([(t.start, t.end) for t in self.tables] + self.fences)

    def add(self, block: str) -> int:
        if self.text:
            self.text += "\n\n"
        start = len(self.text)
        self.text += block
        return start

    def add_table(self, block: str) -> None:
        start = self.add(block)
        spans = []
        offset = start
        for line in block.split("\n"):
            spans.append((offset, offset + len(line)))
            offset += len(line) + 1
        header_end = spans[1][1]
        self.tables.append(
            GeneratedTable(
                start, start + len(block), self.text[start:header_end], header_end, tuple(spans[2:])
            )
        )

    def expected_breadcrumbs(self, offset: int) -> str:
        stack: list[tuple[int, str]] = []
        for start, level, label in self.headings:
            if start > offset:
                break
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, label))
        return " > ".join(label for _, label in stack)


def sentence(rng: random.Random) -> str:
    style = rng.random()
    if style < 0.15:
        return "".join(rng.choice(CHINESE) for _ in range(rng.randint(4, 20))) + "。"
    vocabulary = RUSSIAN if style < 0.4 else ENGLISH
    words = [rng.choice(vocabulary) for _ in range(rng.randint(3, 14))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(EMOJI))
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(sentence(rng) for _ in range(sentences))


def table(rng: random.Random) -> str:
    columns = rng.randint(2, 4)
    rows = [
        "| " + " | ".join(rng.choice(ENGLISH + RUSSIAN) for _ in range(columns)) + " |"
        for _ in range(rng.randint(2, 12))
    ]
    rows.insert(1, "|" + "---|" * columns)
    return "\n".join(rows)


def fence(rng: random.Random) -> str:
    marker = rng.choice(["```", "~~~", "````"])
    body = []
    for _ in range(rng.randint(1, 12)):
        body.append(
            rng.choice(
                [
                    "# not a heading inside code",
                    "",
                    "| not | a table |",
                    "x = compute(" + rng.choice(ENGLISH) + ")",
                    "    indented line with  spaces",
                ]
            )
        )
    return "\n".join([marker + rng.choice(["python", "", "text"]), *body, marker])


def bullet_list(rng: random.Random) -> str:
    ordered = rng.random() < 0.5
    items = []
    for n in range(1, rng.randint(2, 8)):
        marker = f"{n}." if ordered else "-"
        items.append(f"{marker} {sentence(rng)}")
        if rng.random() < 0.3:
            items.append(f"  {sentence(rng)}")
    return "\n".join(items)


def generate_document(seed: int) -> GeneratedDocument:
    rng = random.Random(seed)
    document = GeneratedDocument()
    for _ in range(rng.randint(3, 30)):
        roll = rng.random()
        if roll < 0.2:
            level = rng.randint(1, 4)
            label = "#" * level + " " + " ".join(rng.choice(ENGLISH + RUSSIAN) for _ in range(2))
            document.headings.append((document.add(label), level, label))
        elif roll < 0.55:
            document.add(paragraph(rng, rng.randint(1, 3 if rng.random() < 0.7 else 25)))
        elif roll < 0.7:
            document.add(bullet_list(rng))
        elif roll < 0.85:
            document.add_table(table(rng))
        else:
            block = fence(rng)
            start = document.add(block)
            document.fences.append((start, start + len(block)))
    if rng.random() < 0.5:
        document.text += "\n"
    return document
