"""The recall corpus: for each format and language, one document whose facts sit in the
places that format can hold them, between filler prose.

A document is a list of blocks (headings, paragraphs, lists, tables, notes, pictures);
tests/support/recall_writers*.py write them in each format. ``FORMATS`` maps each corpus
format to the gate file type it is sent as and the locations it holds facts in; the
``pdf-scan`` format is a PDF whose pages are pictures only (OCR), ``png``/``jpg`` a
picture alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.support.recall_facts import LANGUAGES, Fact, Filler, Names
from tests.support.recall_relations import NOTE_LABEL, TABLE_HEADERS


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Items:
    items: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Note:
    """A footnote or speaker note: ``label`` is "Note" in the document's language."""

    label: str
    text: str


@dataclass(frozen=True)
class Picture:
    """Text rendered into an image (the image's only text is what OCR can read)."""

    lines: tuple[str, ...]


Block = Heading | Paragraph | Items | Table | Note | Picture


@dataclass(frozen=True)
class Format:
    file_type: str
    extension: str
    locations: tuple[str, ...]


_DOCUMENT = ("body", "heading", "list", "table", "picture", "body")
FORMATS: dict[str, Format] = {
    "pdf": Format("pdf", "pdf", (*_DOCUMENT[:-1], "note", "body")),
    "pdf-scan": Format("pdf", "pdf", ("image", "image")),
    "docx": Format("docx", "docx", _DOCUMENT),
    "doc": Format("doc", "doc", _DOCUMENT),
    "pptx": Format("pptx", "pptx", (*_DOCUMENT[:-1], "note", "body")),
    "ppt": Format("ppt", "ppt", (*_DOCUMENT[:-1], "note", "body")),
    "xlsx": Format("xlsx", "xlsx", ("table", "table", "table")),
    "xls": Format("xls", "xls", ("table", "table", "table")),
    "csv": Format("csv", "csv", ("table", "table", "table")),
    "html": Format("html", "html", (*_DOCUMENT[:-1], "note", "body")),
    "mhtml": Format("mhtml", "mhtml", _DOCUMENT),
    "epub": Format("epub", "epub", (*_DOCUMENT[:-1], "note", "body")),
    "md": Format("md", "md", (*_DOCUMENT[:-1], "note", "body")),
    "txt": Format("txt", "txt", ("body", "heading", "list", "body")),
    "json": Format("json", "json", ("json", "json", "json")),
    "xmind": Format("xmind", "xmind", ("list", "list")),
    "png": Format("png", "png", ("image",)),
    "jpg": Format("jpg", "jpg", ("image",)),
}


@dataclass(frozen=True)
class RecallDocument:
    key: str  # "<format>-<language>", unique in the corpus
    format: str
    language: str
    title: str
    blocks: tuple[Block, ...]
    facts: tuple[Fact, ...]
    path: Path | None = None

    @property
    def file_type(self) -> str:
        return FORMATS[self.format].file_type

    @property
    def file_name(self) -> str:
        return f"{self.key}.{FORMATS[self.format].extension}"


_TITLES = {"en": "Waterworks report", "ru": "Отчёт гидроузла", "zh": "水务报告"}
_PICTURE_LINE_CHARS = {"en": 34, "ru": 30, "zh": 14}
_FILLER_ROWS = 4


def picture_lines(text: str, language: str) -> tuple[str, ...]:
    """``text`` wrapped to lines that fit a picture (Chinese by characters, others by words)."""
    width = _PICTURE_LINE_CHARS[language]
    # Chinese breaks between any two characters, but never inside a number.
    pieces, space = (re.findall(r"\d+|.", text), "") if language == "zh" else (text.split(), " ")
    lines: list[str] = []
    for piece in pieces:
        if lines and len(lines[-1]) + len(space) + len(piece) <= width:
            lines[-1] += space + piece
        else:
            lines.append(piece)
    return tuple(lines)


class _Composer:
    def __init__(self, language: str, names: Names, filler: Filler) -> None:
        self.language = language
        self.names = names
        self.filler = filler
        self.blocks: list[Block] = []

    def _section(self, heading: str | None = None) -> None:
        self.blocks.append(Heading(2, heading or self.filler.heading(self.language)))

    def prose(self) -> str:
        return self.filler.paragraph(self.language)

    def _table(self, fact_row: tuple[str, ...]) -> Table:
        rows: list[tuple[str, ...]] = [
            self.names.filler_row(self.language) for _ in range(_FILLER_ROWS)
        ]
        rows.insert(len(rows) // 2, fact_row)
        return Table(TABLE_HEADERS[self.language], tuple(rows))

    def place(self, fact: Fact, json_leaf: bool) -> None:
        lang = self.language
        joiner = "" if lang == "zh" else " "
        sentence = self.filler.sentence
        if fact.location == "body":
            self._section()
            self.blocks.append(
                Paragraph(
                    joiner.join((sentence(lang), sentence(lang), fact.statement, sentence(lang)))
                )
            )
        elif fact.location == "heading":
            self._section(fact.heading)
            self.blocks.append(Paragraph(self.prose()))
        elif fact.location == "list":
            self._section()
            self.blocks.append(Items((sentence(lang), fact.statement, sentence(lang))))
        elif fact.location == "table" or (fact.location == "json" and not json_leaf):
            self._section()
            self.blocks.append(self._table(fact.row))
        elif fact.location == "note":
            self.blocks.append(Note(NOTE_LABEL[lang], fact.statement))
        elif fact.location == "json":
            self._section()
            self.blocks.append(Paragraph(fact.statement))
        elif fact.location == "picture":
            self._section()
            self.blocks.append(Paragraph(self.prose()))
            self.blocks.append(Picture(picture_lines(fact.statement, lang)))
        elif fact.location == "image":
            text = joiner.join((sentence(lang), fact.statement, sentence(lang)))
            self.blocks.append(Picture(picture_lines(text, lang)))
        else:
            raise ValueError(f"unknown location {fact.location!r}")
        if fact.location not in ("image", "note"):
            self.blocks.append(Paragraph(self.prose()))


def compose(format_name: str, language: str, names: Names, filler: Filler) -> RecallDocument:
    """One document of ``format_name`` in ``language`` with a fact per location of its
    format."""
    key = f"{format_name}-{language}"
    composer = _Composer(language, names, filler)
    title = f"{_TITLES[language]} {names.place(language)}"
    picture_only = all(loc == "image" for loc in FORMATS[format_name].locations)
    if not picture_only:
        composer.blocks += [Heading(1, title), Paragraph(composer.prose())]
    facts = []
    for n, location in enumerate(FORMATS[format_name].locations):
        fact = names.fact(f"{key}-{n}-{location}", language, location)
        composer.place(fact, json_leaf=n % 2 == 1)
        facts.append(fact)
    return RecallDocument(key, format_name, language, title, tuple(composer.blocks), tuple(facts))


def compose_corpus(
    formats: tuple[str, ...] = tuple(FORMATS),
    languages: tuple[str, ...] = LANGUAGES,
    seed: int = 20261201,
) -> list[RecallDocument]:
    """Every format in every language; the same seed gives the same corpus."""
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        raise ValueError(f"unknown formats {unknown}; known: {', '.join(FORMATS)}")
    names, filler = Names(seed), Filler(seed + 1)
    return [compose(f, lang, names, filler) for f in formats for lang in languages]
