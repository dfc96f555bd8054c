"""The engine catalogue: which engine reads which file types, with which parser.

What an engine supports is the ``parsers`` mapping (file type → parser); nothing else decides
it. An unavailable engine is listed with the types it would read and the reason it cannot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from server.docreader.errors import (
    EngineUnavailableError,
    InvalidRequestError,
    UnsupportedFormatError,
)
from server.docreader.parsers.base import Parser
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.html import HtmlParser
from server.docreader.parsers.json_document import JsonParser
from server.docreader.parsers.markdown import MarkdownParser
from server.docreader.parsers.plain_text import PlainTextParser

DEFAULT_ENGINE = "builtin"


@dataclass(frozen=True)
class Engine:
    name: str
    description: str
    parsers: Mapping[str, Parser] = field(default_factory=dict)
    unavailable_reason: str = ""
    # Listed for an unavailable engine, which has no parsers to derive them from.
    planned_file_types: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return not self.unavailable_reason

    @property
    def file_types(self) -> tuple[str, ...]:
        return tuple(sorted(self.parsers)) if self.available else self.planned_file_types

    def parser_for(self, file_type: str) -> Parser:
        if not self.available:
            raise EngineUnavailableError(
                f"engine {self.name!r} is unavailable: {self.unavailable_reason}"
            )
        parser = self.parsers.get(file_type)
        if parser is None:
            supported = ", ".join(self.file_types)
            raise UnsupportedFormatError(
                f"engine {self.name!r} does not read file type {file_type!r} "
                f"(supported: {supported})"
            )
        return parser


class EngineRegistry:
    def __init__(self, engines: Iterable[Engine], default: str = DEFAULT_ENGINE) -> None:
        self._engines = {engine.name: engine for engine in engines}
        if default not in self._engines:
            raise ValueError(f"default engine {default!r} is not registered")
        self._default = default

    def get(self, name: str) -> Engine:
        """The engine called ``name``; an empty name means the default engine."""
        engine = self._engines.get(name or self._default)
        if engine is None:
            known = ", ".join(self._engines)
            raise InvalidRequestError(f"unknown engine {name!r} (known: {known})")
        return engine

    def engines(self) -> list[Engine]:
        return list(self._engines.values())


def default_registry() -> EngineRegistry:
    markdown = MarkdownParser()
    text = PlainTextParser()
    html = HtmlParser()
    builtin = Engine(
        name="builtin",
        description="Sluice's own parsers: Markdown, text, CSV, JSON and HTML",
        parsers={
            "md": markdown, "markdown": markdown, "txt": text, "csv": CsvParser(),
            "json": JsonParser(), "html": html, "htm": html,
        },
    )
    simple_markdown = MarkdownParser(extract_images=False)
    simple = Engine(
        name="simple",
        description="Minimal conversion of Markdown, text, CSV (comma) and JSON (as written)",
        parsers={
            "md": simple_markdown, "markdown": simple_markdown, "txt": text,
            "csv": CsvParser(sniff_delimiter=False), "json": JsonParser(pretty=False),
        },
    )
    markitdown = Engine(
        name="markitdown",
        description="Microsoft MarkItDown: office documents, PDF, EPUB, HTML",
        unavailable_reason="markitdown is not installed",
        planned_file_types=(
            "csv", "docx", "epub", "htm", "html", "json", "md", "pdf", "pptx", "txt", "xls",
            "xlsx",
        ),
    )
    return EngineRegistry([builtin, simple, markitdown])
