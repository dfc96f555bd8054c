"""The engine catalogue: which engine reads which file types, with which parser.

What an engine supports is its ``parsers`` mapping (file type → parser). A type whose
parser needs a program this machine lacks (LibreOffice for doc and ppt) is listed in
``unavailable_file_types`` with the reason; an engine whose package is missing is listed
with the types it would read and why it cannot.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from server.docreader.errors import (
    EngineUnavailableError,
    InvalidRequestError,
    UnsupportedFormatError,
)
from server.docreader.parser_contract import Parser, WholeInputParser
from server.docreader.parsers.audio import AUDIO_TYPES, AudioParser
from server.docreader.parsers.csv_table import CsvParser
from server.docreader.parsers.epub import EpubParser
from server.docreader.parsers.html import HtmlParser
from server.docreader.parsers.image import ImageParser
from server.docreader.parsers.json_document import JsonParser
from server.docreader.parsers.markdown import MarkdownParser
from server.docreader.parsers.markitdown_engine import (
    MARKITDOWN_FILE_TYPES,
    MarkItDownParser,
    markitdown_missing_reason,
)
from server.docreader.parsers.mhtml import MhtmlParser
from server.docreader.parsers.office.docx import DocxParser
from server.docreader.parsers.office.libreoffice import DocParser, PptParser
from server.docreader.parsers.office.pptx import PptxParser
from server.docreader.parsers.pdf import PdfParser
from server.docreader.parsers.plain_text import PlainTextParser
from server.docreader.parsers.sheets.xls import XlsParser
from server.docreader.parsers.sheets.xlsx import XlsxParser
from server.docreader.parsers.xmind import XmindParser
from server.docreader.safety.limits import ParseLimits

DEFAULT_ENGINE = "builtin"
IMAGE_TYPES = ("png", "jpg", "jpeg", "gif")


@dataclass(frozen=True)
class Engine:
    name: str
    description: str
    parsers: Mapping[str, Parser] = field(default_factory=dict)
    unavailable_reason: str = ""
    # File type → why this machine cannot read it with this engine.
    unavailable_file_types: Mapping[str, str] = field(default_factory=dict)
    # Listed for an unavailable engine, which has no parsers to derive them from.
    planned_file_types: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return not self.unavailable_reason

    @property
    def file_types(self) -> tuple[str, ...]:
        return tuple(sorted(self.parsers)) if self.available else self.planned_file_types

    def max_input_bytes(self, limits: ParseLimits, service_cap: int | None) -> dict[str, int]:
        """File type → the largest file this engine reads of it: its parser's own limit or
        ``service_cap`` (None: none), whichever is smaller; types with neither are left out."""
        caps: dict[str, int] = {}
        for file_type, parser in self.parsers.items():
            own = parser.max_input_bytes(limits) if isinstance(parser, WholeInputParser) else None
            found = [cap for cap in (own, service_cap) if cap is not None]
            if found:
                caps[file_type] = min(found)
        return caps

    def parser_for(self, file_type: str) -> Parser:
        if not self.available:
            raise EngineUnavailableError(
                f"engine {self.name!r} is unavailable: {self.unavailable_reason}"
            )
        missing = self.unavailable_file_types.get(file_type)
        if missing:
            raise EngineUnavailableError(
                f"engine {self.name!r} cannot read {file_type} here: {missing}"
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
    return EngineRegistry([_builtin(), _simple(), _markitdown()])


def _builtin() -> Engine:
    markdown = MarkdownParser()
    html = HtmlParser()
    image = ImageParser()
    audio = AudioParser()
    parsers: dict[str, Parser] = {
        "pdf": PdfParser(),
        "docx": DocxParser(),
        "doc": DocParser(),
        "pptx": PptxParser(),
        "ppt": PptParser(),
        "xlsx": XlsxParser(),
        "xls": XlsParser(),
        "csv": CsvParser(),
        "epub": EpubParser(),
        "html": html,
        "htm": html,
        "mhtml": MhtmlParser(),
        "md": markdown,
        "markdown": markdown,
        "txt": PlainTextParser(),
        "json": JsonParser(),
        "xmind": XmindParser(),
        **dict.fromkeys(IMAGE_TYPES, image),
        **dict.fromkeys(AUDIO_TYPES, audio),
    }
    missing: dict[str, str] = {}
    if shutil.which("soffice") is None:
        reason = "it is converted with LibreOffice (soffice), which is not installed"
        missing = {"doc": reason, "ppt": reason}
    return Engine(
        name="builtin",
        description=(
            "Sluice's own parsers: PDF (with OCR of scanned pages), Word, PowerPoint, Excel, "
            "EPUB, HTML, MHTML, XMind, Markdown, text, CSV, JSON, images (OCR) and audio"
        ),
        parsers=parsers,
        unavailable_file_types=missing,
    )


def _simple() -> Engine:
    markdown = MarkdownParser(extract_images=False)
    image = ImageParser(ocr=False)
    audio = AudioParser()
    return Engine(
        name="simple",
        description=(
            "Minimal conversion: Markdown and text as written, CSV (comma) as a table, JSON as "
            "written, images and audio as links"
        ),
        parsers={
            "md": markdown,
            "markdown": markdown,
            "txt": PlainTextParser(),
            "csv": CsvParser(sniff_delimiter=False),
            "json": JsonParser(pretty=False),
            **dict.fromkeys(IMAGE_TYPES, image),
            **dict.fromkeys(AUDIO_TYPES, audio),
        },
    )


def _markitdown() -> Engine:
    reason = markitdown_missing_reason()
    parser = MarkItDownParser()
    return Engine(
        name="markitdown",
        description="Microsoft MarkItDown: office documents, PDF, EPUB, HTML, CSV, JSON",
        parsers={} if reason else dict.fromkeys(MARKITDOWN_FILE_TYPES, parser),
        unavailable_reason=reason,
        planned_file_types=MARKITDOWN_FILE_TYPES,
    )
