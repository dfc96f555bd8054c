"""What every corpus file says: its two known sentences and the shared structural features.

Each file gets sentences nobody else has (its extension plus a number word and a colour of
its own), so a search for one finds exactly that file. The structure — a title, a section,
a bullet list, a numbered list, a Region/Revenue table — is the same everywhere, so the
fidelity markers (substrings the Markdown must contain) read the same for every format.

Markers are written to be format-agnostic: a heading marker has one ``#`` because "# Title"
is also a substring of "## Title", whatever level a parser chooses.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    # The gate's extension (lower case, no dot), also the type the file is sent as.
    file_type: str
    # Known sentences, verbatim in the file's text (OCR'd for images; none for audio).
    sentences: tuple[str, ...]
    # Substrings the Markdown must contain: headings, list items, table rows, sheet names...
    fidelity: tuple[str, ...]
    # Pictures embedded in the document (a parser that extracts images returns at least these).
    images: int = 0


TITLE = "Heron Survey"
SECTION = "Field Notes"
ITEMS = ("first item", "second item")
STEPS = ("first step", "second step")
TABLE: tuple[tuple[str, str], ...] = (("Region", "Revenue"), ("North", "1200"), ("South", "950"))

TITLE_MARK = f"# {TITLE}"
SECTION_MARK = f"# {SECTION}"
BULLET_MARK = f"- {ITEMS[0]}"
NUMBERED_MARK = f"1. {STEPS[0]}"
TABLE_HEADER_MARK = "| Region | Revenue |"
TABLE_ROW_MARK = "| North | 1200 |"

_NUMBERS = (
    "seventeen",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "eighteen",
    "nineteen",
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
)
_COLOURS = (
    "amber",
    "crimson",
    "teal",
    "violet",
    "golden",
    "silver",
    "scarlet",
    "indigo",
    "olive",
    "coral",
    "ivory",
    "maroon",
    "azure",
    "copper",
    "jade",
    "ochre",
    "plum",
    "saffron",
    "cobalt",
    "russet",
    "bronze",
    "pearl",
    "lilac",
    "tawny",
)


def sentences_for(index: int, label: str) -> tuple[str, str]:
    """Two sentences unique to the file numbered ``index`` (plain words: OCR reads them)."""
    return (
        f"The {label} heron counts {_NUMBERS[index]} lanterns.",
        f"A quiet {label} otter paints {_COLOURS[index]} bridges.",
    )


def markdown_text(sentences: tuple[str, str]) -> str:
    rows = ["| " + " | ".join(row) + " |" for row in TABLE]
    rows.insert(1, "| --- | --- |")
    return (
        "\n\n".join(
            [
                f"# {TITLE}",
                sentences[0],
                f"## {SECTION}",
                sentences[1],
                "\n".join(f"- {item}" for item in ITEMS),
                "\n".join(f"{n}. {step}" for n, step in enumerate(STEPS, start=1)),
                "\n".join(rows),
            ]
        )
        + "\n"
    )


def html_table() -> str:
    head, *body = TABLE
    cells = "".join(f"<th>{html.escape(c)}</th>" for c in head)
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body
    )
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{rows}</tbody></table>"


def html_body(sentences: tuple[str, str], image_src: str = "") -> str:
    """The body of the HTML-like formats (html, htm, mhtml)."""
    items = "".join(f"<li>{item}</li>" for item in ITEMS)
    steps = "".join(f"<li>{step}</li>" for step in STEPS)
    image = f'<p><img src="{image_src}" alt="heron figure"></p>' if image_src else ""
    return (
        f"<h1>{TITLE}</h1>\n<p>{html.escape(sentences[0])}</p>\n<h2>{SECTION}</h2>\n"
        f"<p>{html.escape(sentences[1])}</p>\n<ul>{items}</ul>\n<ol>{steps}</ol>\n"
        f"{html_table()}\n{image}"
    )


def html_page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n"
    )


STRUCTURED_MARKS = (
    TITLE_MARK,
    SECTION_MARK,
    BULLET_MARK,
    NUMBERED_MARK,
    TABLE_HEADER_MARK,
    TABLE_ROW_MARK,
)
